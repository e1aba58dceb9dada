package io.tapline.events.webhook;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostPolicyTest {

    /** A fixed DNS: names to addresses, anything else unknown. */
    private static HostPolicy.Resolver dns(Map<String, String> names) {
        return host -> {
            String a = names.get(host);
            if (a == null) {
                if (Cidr.looksLikeAddress(host)) {
                    return new InetAddress[]{InetAddress.getByName(host)};
                }
                throw new UnknownHostException(host);
            }
            return new InetAddress[]{InetAddress.getByName(a)};
        };
    }

    private static final HostPolicy.Resolver DNS = dns(Map.of("hooks.example.com", "93.184.216.34",
            "rebind.example.com", "10.1.2.3", "metadata.google.internal", "169.254.169.254"));

    @Test
    void byDefaultOnlyPublicAddressesAreAllowed() {
        HostPolicy p = new HostPolicy(Optional.empty(), DNS);
        assertDoesNotThrow(() -> p.check(URI.create("https://hooks.example.com/x")));
        for (String url : List.of("http://127.0.0.1:8080/", "http://localhost.localdomain/", "http://10.0.0.1/",
                "http://172.16.5.4/", "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data",
                "http://metadata.google.internal/", "http://100.64.0.1/", "http://0.0.0.0/", "http://[::1]/",
                "http://[fd00:ec2::254]/", "http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://224.0.0.1/",
                "http://rebind.example.com/")) {
            assertThrows(HostPolicy.HostRefusedException.class, () -> p.check(URI.create(url)), url);
        }
    }

    @Test
    void ipv6AddressesCarryingARefusedIpv4AddressAreRefused() {
        // regression (issue 31 item 8): the translated and 6to4 forms of 127.0.0.1 were accepted
        HostPolicy p = new HostPolicy(Optional.empty(), DNS);
        for (String url : List.of("http://[::ffff:0:127.0.0.1]/", "http://[::ffff:0:7f00:1]:8080/",
                "http://[2002:7f00:1::1]/", "http://[2002:a00:1::1]/", "http://[2002:a9fe:a9fe::]/",
                "http://[64:ff9b::127.0.0.1]/", "http://[64:ff9b::a9fe:a9fe]/", "http://[64:ff9b:1::1]/",
                "http://[::127.0.0.1]/", "http://[::10.0.0.1]/", "http://[::ffff:192.168.0.1]/", "http://[::]/",
                "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "http://[2001:0:a00:1::1]/")) {
            assertThrows(HostPolicy.HostRefusedException.class, () -> p.check(URI.create(url)), url);
        }
        // 93.184.216.34 behind NAT64 or 6to4, and a plain global IPv6 address, are public
        for (String url : List.of("http://[64:ff9b::5db8:d822]/", "http://[2002:5db8:d822::1]/",
                "http://[2606:4700:4700::1111]/")) {
            assertDoesNotThrow(() -> p.check(URI.create(url)), url);
        }
    }

    @Test
    void onlyHttpWithAHostAndNoUserInfo() {
        HostPolicy p = new HostPolicy(Optional.empty(), DNS);
        for (String url : List.of("file:///etc/passwd", "gopher://hooks.example.com/", "https://user:pw@hooks.example.com/",
                "http:///nohost")) {
            assertThrows(HostPolicy.HostRefusedException.class, () -> p.check(URI.create(url)), url);
        }
    }

    @Test
    void aListAllowsExactlyItsNamesSuffixesAndRanges() throws Exception {
        HostPolicy p = new HostPolicy(Optional.of(List.of("127.0.0.1", "*.example.com", "10.1.0.0/16")), DNS);
        assertDoesNotThrow(() -> p.check(URI.create("http://127.0.0.1:9999/hook")));
        assertDoesNotThrow(() -> p.check(URI.create("http://rebind.example.com/")), "listed by suffix");
        assertDoesNotThrow(() -> p.check(URI.create("http://10.1.200.3/")), "in the range");
        HostPolicy.HostRefusedException e = assertThrows(HostPolicy.HostRefusedException.class,
                () -> p.check(URI.create("http://10.2.0.1/")));
        assertTrue(e.getMessage().contains("tapline.webhooks.allowed-hosts"));
        assertThrows(HostPolicy.HostRefusedException.class, () -> p.check(URI.create("http://127.0.0.2/")));
        assertThrows(HostPolicy.HostRefusedException.class, () -> p.check(URI.create("https://hooks.slack.com/")));
    }

    @Test
    void aMalformedEntryNamesTheSetting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new HostPolicy(Optional.of(List.of("10.0.0.0/99"))));
        assertTrue(e.getMessage().startsWith("tapline.webhooks.allowed-hosts"));
    }

    @Test
    void globsMatchWholeNames() {
        assertTrue(Globs.matches("*", "people"));
        assertTrue(Globs.matches("prod-*", "prod-people"));
        assertTrue(Globs.matches("p?ople", "people"));
        assertTrue(!Globs.matches("prod-*", "dev-prod-people"));
        assertTrue(!Globs.matches("people", "people2"));
        assertTrue(Globs.matches("*-to-*", "a-to-b"));
    }

    @Test
    void signaturesAreHmacSha256OverTimestampDotBody() {
        // the vector from: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'secret-secret-16'
        org.junit.jupiter.api.Assertions.assertEquals(
                "t=1700000000,v1=df6c7ddb48f79237fc23533418747c32f1beedf8c52f397e7fef6ac321de837c",
                Signatures.header("secret-secret-16", 1700000000L, "{\"a\":1}"));
    }
}
