package io.tapline.common.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/**
 * The RSA key pair of dev mode ({@code ./mvnw quarkus:dev}): generated once into
 * {@value #DIR} (private key mode 0600) and reused, so dev tokens survive restarts and live
 * reloads. Never used outside the dev profile; see {@link SecurityConfigSourceFactory}.
 */
public final class DevKeys {

    /** Directory of the dev key pair, relative to the working directory. */
    public static final String DIR = ".tapline/dev-keys";
    /** Issuer of dev tokens, required by the dev profile. */
    public static final String ISSUER = "tapline-dev";
    /**
     * The verification key location the dev profile sets in application.properties. It has to be
     * set there, at build time, or Quarkus's own dev services replace it with an in-memory key.
     */
    public static final String LOCATION = "file:" + DIR + "/public.pem";

    private DevKeys() {
    }

    /** True when {@code location} names the dev public key (as {@link #LOCATION} or as an absolute file URL). */
    public static boolean isDevLocation(String location) {
        return location != null && (location.equals(LOCATION) || location.equals("file:" + publicKey()));
    }

    /** The public key file (PEM, X.509 SubjectPublicKeyInfo). */
    public static Path publicKey() {
        return Path.of(DIR, "public.pem").toAbsolutePath();
    }

    /** The private key file (PEM, PKCS#8). */
    public static Path privateKey() {
        return Path.of(DIR, "private.pem").toAbsolutePath();
    }

    /**
     * Creates the key pair unless both files exist.
     *
     * @throws IllegalStateException when the files cannot be written
     */
    public static void ensure() {
        if (Files.isRegularFile(publicKey()) && Files.isRegularFile(privateKey())) {
            return;
        }
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            KeyPair pair = g.generateKeyPair();
            Files.createDirectories(publicKey().getParent());
            write(privateKey(), pem("PRIVATE KEY", pair.getPrivate().getEncoded()), true);
            write(publicKey(), pem("PUBLIC KEY", pair.getPublic().getEncoded()), false);
        } catch (IOException | java.security.GeneralSecurityException e) {
            throw new IllegalStateException("Cannot create the dev-mode key pair in " + DIR + ": " + e.getMessage(), e);
        }
    }

    /** Reads the dev private key. */
    public static PrivateKey readPrivateKey() throws IOException, java.security.GeneralSecurityException {
        String pem = Files.readString(privateKey(), StandardCharsets.US_ASCII);
        String body = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private static void write(Path file, String content, boolean secret) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        if (secret && FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.createFile(tmp);
        }
        Files.writeString(tmp, content, StandardCharsets.US_ASCII);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
