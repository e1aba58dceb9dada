package io.tapline.events.webhook;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which hosts webhook URLs may call ({@code tapline.webhooks.allowed-hosts}), against server-side
 * request forgery. Checked when a webhook is created and again before every delivery (DNS may
 * change in between); deliveries never follow redirects.
 *
 * <ul>
 *   <li>Only {@code http} and {@code https} URLs with a host and without user info.</li>
 *   <li>Setting unset: the host must resolve, and every address must be public: no loopback,
 *       unspecified, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16,
 *       which holds the cloud metadata address 169.254.169.254, fe80::/10), CGNAT (100.64/10),
 *       multicast or reserved address; an IPv6 address carrying an IPv4 one (mapped, compatible,
 *       translated, NAT64, 6to4, Teredo) is refused when that IPv4 address is.</li>
 *   <li>Setting given: the host must match an entry: a host name (case-insensitive), a
 *       {@code *.suffix} glob, or an IP address / CIDR range containing every address the host
 *       resolves to. What a listed name resolves to is the operator's choice.</li>
 * </ul>
 */
public final class HostPolicy {

    private final List<String> names = new ArrayList<>();
    private final List<String> suffixes = new ArrayList<>();
    private final List<Cidr> ranges = new ArrayList<>();
    private final boolean listed;
    private final Resolver resolver;

    /** Resolves host names; replaceable in tests. */
    @FunctionalInterface
    public interface Resolver {
        /** Every address of {@code host}. */
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /**
     * @param allowed the setting's entries, or empty for "public addresses only"
     * @throws IllegalArgumentException naming the setting when an entry is malformed
     */
    public HostPolicy(Optional<List<String>> allowed) {
        this(allowed, InetAddress::getAllByName);
    }

    /** As {@link #HostPolicy(Optional)}, with a resolver. */
    public HostPolicy(Optional<List<String>> allowed, Resolver resolver) {
        this.resolver = resolver;
        this.listed = allowed.isPresent() && !allowed.get().isEmpty();
        for (String raw : allowed.orElse(List.of())) {
            String e = raw.trim().toLowerCase(Locale.ROOT);
            if (e.isEmpty()) {
                continue;
            }
            if (e.startsWith("*.")) {
                suffixes.add(e.substring(1));
            } else if (Cidr.looksLikeAddress(e)) {
                ranges.add(Cidr.parse(e));
            } else {
                names.add(e);
            }
        }
    }

    /**
     * Checks a webhook URL.
     *
     * @throws HostRefusedException with a readable reason (no addresses of other hosts)
     */
    public void check(URI url) throws HostRefusedException {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new HostRefusedException("only http and https URLs are allowed");
        }
        if (url.getRawUserInfo() != null) {
            throw new HostRefusedException("user info (user:password@) is not allowed in the URL; sign with the secret");
        }
        String host = url.getHost();
        if (host == null || host.isEmpty()) {
            throw new HostRefusedException("the URL has no host");
        }
        host = host.toLowerCase(Locale.ROOT);
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (listed && (names.contains(bare) || suffixes.stream().anyMatch(bare::endsWith))) {
            return;
        }
        InetAddress[] addresses;
        try {
            addresses = resolver.resolve(bare);
        } catch (UnknownHostException e) {
            throw new HostRefusedException("host '" + bare + "' cannot be resolved");
        }
        if (addresses.length == 0) {
            throw new HostRefusedException("host '" + bare + "' cannot be resolved");
        }
        for (InetAddress a : addresses) {
            if (listed) {
                if (ranges.stream().noneMatch(r -> r.contains(a))) {
                    throw new HostRefusedException("host '" + bare + "' is not in tapline.webhooks.allowed-hosts");
                }
            } else if (!isPublic(a)) {
                throw new HostRefusedException("host '" + bare + "' resolves to an internal address (loopback, private,"
                        + " link-local or metadata); list it in tapline.webhooks.allowed-hosts to allow it");
            }
        }
    }

    /**
     * True for a globally routable unicast address. An IPv6 address that carries an IPv4 one is
     * judged by that IPv4 address as well: IPv4-mapped ({@code ::ffff:a.b.c.d}), IPv4-compatible
     * ({@code ::a.b.c.d}), IPv4-translated ({@code ::ffff:0:a.b.c.d}), NAT64 ({@code 64:ff9b::/96}),
     * 6to4 ({@code 2002:AABB:CCDD::/48}) and Teredo ({@code 2001::/32}: server and client).
     */
    static boolean isPublic(InetAddress a) {
        byte[] b = a.getAddress();
        if (b.length == 16) {
            List<byte[]> embedded = embeddedV4(b);
            for (byte[] v4 : embedded) {
                if (!isPublic(v4(v4))) {
                    return false;
                }
            }
            if (!embedded.isEmpty() && wholeV4(b)) {
                return true;
            }
        }
        if (a.isAnyLocalAddress() || a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress()
                || a.isMulticastAddress()) {
            return false;
        }
        for (Cidr c : RESERVED) {
            if (c.contains(a)) {
                return false;
            }
        }
        return true;
    }

    /** The IPv4 addresses an IPv6 address carries (see {@link #isPublic}); empty for none. */
    static List<byte[]> embeddedV4(byte[] b) {
        if (wholeV4(b)) {
            return List.of(java.util.Arrays.copyOfRange(b, 12, 16));
        }
        if (b[0] == 0x20 && b[1] == 0x02) {
            return List.of(java.util.Arrays.copyOfRange(b, 2, 6));
        }
        if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0) {
            byte[] client = new byte[4];
            for (int i = 0; i < 4; i++) {
                client[i] = (byte) ~b[12 + i];
            }
            return List.of(java.util.Arrays.copyOfRange(b, 4, 8), client);
        }
        return List.of();
    }

    /**
     * True for the forms whose last 32 bits are the whole address: IPv4-mapped, -compatible,
     * -translated and NAT64 (well-known prefix).
     */
    private static boolean wholeV4(byte[] b) {
        boolean nat64 = b[0] == 0 && b[1] == 0x64 && b[2] == (byte) 0xff && b[3] == (byte) 0x9b;
        for (int i = nat64 ? 4 : 0; i < 8; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        int w8 = ((b[8] & 0xff) << 8) | (b[9] & 0xff);
        int w10 = ((b[10] & 0xff) << 8) | (b[11] & 0xff);
        if (nat64) {
            return w8 == 0 && w10 == 0;
        }
        return (w8 == 0 && (w10 == 0xffff || w10 == 0)) || (w8 == 0xffff && w10 == 0);
    }

    private static InetAddress v4(byte[] v4) {
        try {
            return InetAddress.getByAddress(v4);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final List<Cidr> RESERVED = List.of(
            Cidr.parse("0.0.0.0/8"), Cidr.parse("100.64.0.0/10"), Cidr.parse("192.0.0.0/24"),
            Cidr.parse("198.18.0.0/15"), Cidr.parse("240.0.0.0/4"), Cidr.parse("fc00::/7"),
            Cidr.parse("64:ff9b:1::/48"), Cidr.parse("2001:db8::/32"), Cidr.parse("2001:10::/28"),
            Cidr.parse("100::/64"));

    /** The reason a URL is refused. */
    public static class HostRefusedException extends Exception {
        /** @param message readable reason */
        public HostRefusedException(String message) {
            super(message);
        }
    }
}
