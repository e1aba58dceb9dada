package io.tapline.common.api;

import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.LimitExceededException;
import jakarta.enterprise.inject.Instance;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Bounds every request body the REST layer reads to {@code tapline.state.max-body-bytes}. A body
 * with a {@code Content-Length} over the limit is refused by {@link HttpFilters} before it is read;
 * a chunked body has none, so it is counted here while it is read, and the read stops with 413
 * problem+json at the first byte over the limit. ({@code quarkus.http.limits.max-body-size} is
 * set above this limit, as a backstop: Vert.x answers it with an empty 413.)
 */
@Provider
public class BodyLimit implements ReaderInterceptor {

    /** Looked up at the first read: the REST layer creates its providers before configuration is available. */
    private final Instance<TaplineConfig> config;
    private volatile long max = -1;

    public BodyLimit(Instance<TaplineConfig> config) {
        this.config = config;
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        long limit = max;
        if (limit < 0) {
            limit = config.get().state().maxBodyBytes();
            max = limit;
        }
        context.setInputStream(new Counted(context.getInputStream(), limit));
        return context.proceed();
    }

    /** A stream that fails with 413 once more than {@code max} bytes have been read from it. */
    static final class Counted extends FilterInputStream {
        private final long max;
        private long read;

        Counted(InputStream in, long max) {
            super(in);
            this.max = max;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            count(skipped);
            return skipped;
        }

        private void count(long n) {
            read += n;
            if (read > max) {
                throw new LimitExceededException(LimitExceededException.Limit.SIZE, "The request body has more than "
                        + max + " bytes, the limit (tapline.state.max-body-bytes).");
            }
        }
    }
}
