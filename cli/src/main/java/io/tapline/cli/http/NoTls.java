package io.tapline.cli.http;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import java.security.SecureRandom;

/**
 * The TLS context of a client for an {@code http://} service: one that can make no connection at
 * all. The JDK's HTTP client wants a context when it is built and otherwise loads the default one
 * (the trust store, every cipher suite's provider): a third of a short command's start-up. Any use
 * for TLS fails loudly; an {@code http://} client never redirects, so it never needs one.
 */
final class NoTls extends SSLContextSpi {

    /** The context. */
    static SSLContext context() {
        return new SSLContext(new NoTls(), null, "none") {
        };
    }

    /** Parameters given with it, so the client does not ask the context for its defaults. */
    static SSLParameters parameters() {
        return new SSLParameters();
    }

    private static UnsupportedOperationException refused() {
        return new UnsupportedOperationException("TLS is not available to a client of an http:// URL");
    }

    @Override
    protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom random) {
        // nothing to set up
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
        throw refused();
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
        throw refused();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
        throw refused();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
        throw refused();
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
        throw refused();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
        throw refused();
    }
}
