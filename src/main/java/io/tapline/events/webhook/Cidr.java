package io.tapline.events.webhook;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** An IP address range ({@code 10.0.0.0/8}, {@code fd00::/8}, or one address). */
record Cidr(byte[] network, int prefix) {

    /** True when {@code text} is an IP address literal or a CIDR range (not a host name). */
    static boolean looksLikeAddress(String text) {
        String a = text.contains("/") ? text.substring(0, text.indexOf('/')) : text;
        return a.contains(":") || a.matches("[0-9.]+");
    }

    /**
     * @throws IllegalArgumentException naming the setting when malformed
     */
    static Cidr parse(String text) {
        int slash = text.indexOf('/');
        String address = slash < 0 ? text : text.substring(0, slash);
        try {
            if (!looksLikeAddress(address)) {
                throw new UnknownHostException(address);
            }
            byte[] bytes = InetAddress.getByName(address).getAddress();
            int prefix = slash < 0 ? bytes.length * 8 : Integer.parseInt(text.substring(slash + 1));
            if (prefix < 0 || prefix > bytes.length * 8) {
                throw new NumberFormatException();
            }
            return new Cidr(bytes, prefix);
        } catch (UnknownHostException | NumberFormatException e) {
            throw new IllegalArgumentException("tapline.webhooks.allowed-hosts: '" + text
                    + "' is not a host name, IP address or CIDR range");
        }
    }

    /** Whether the address lies in this range (an IPv4 range never holds an IPv6 address). */
    boolean contains(InetAddress a) {
        byte[] b = a.getAddress();
        if (b.length != network.length) {
            return false;
        }
        int full = prefix / 8;
        for (int i = 0; i < full; i++) {
            if (b[i] != network[i]) {
                return false;
            }
        }
        int rest = prefix % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (b[full] & mask) == (network[full] & mask);
    }
}
