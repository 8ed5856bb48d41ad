package io.nsc.protocol.security;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static com.google.common.base.Suppliers.memoize;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.util.Objects.requireNonNull;

/**
 * The TLS material of one component, loaded once from its PEM files: what its servers present
 * and accept, and what its clients present and trust. Only certificates issued by the cluster CA
 * are trusted, in both directions.
 */
public final class TransportSecurity
{
    private static final Pattern PRIVATE_KEY = Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final List<String> PROTOCOLS = List.of("TLSv1.3");
    private static final char[] NO_PASSWORD = new char[0];

    private final Optional<Material> material;

    private TransportSecurity(Optional<Material> material)
    {
        this.material = requireNonNull(material, "material is null");
    }

    /** Plaintext, no authentication: every caller may do everything. */
    public static TransportSecurity insecure()
    {
        return new TransportSecurity(Optional.empty());
    }

    /**
     * Mutual TLS with the given files.
     *
     * @throws IllegalArgumentException when a file is missing or unreadable, naming it
     */
    public static TransportSecurity mutualTls(TlsFiles files)
    {
        return new TransportSecurity(Optional.of(Material.load(files)));
    }

    public boolean isInsecure()
    {
        return material.isEmpty();
    }

    /** The identity this component's own certificate names. */
    public Optional<PeerIdentity> ownIdentity()
    {
        return material.map(Material::identity);
    }

    /** The expiry of this component's certificate, for start-up logs and metrics. */
    public Optional<java.time.Instant> certificateExpiry()
    {
        return material.map(value -> value.certificate().getNotAfter().toInstant());
    }

    /** For a gRPC server: present our certificate, and ask (not require) the client for its own. */
    public Optional<SslContext> grpcServerContext()
    {
        return material.map(value -> value.grpcServerContext().get());
    }

    /** For a gRPC client: present our certificate, trust only the cluster CA. Shared by every channel, so sessions resume. */
    public Optional<SslContext> grpcClientContext()
    {
        return material.map(value -> value.grpcClientContext().get());
    }

    /** For the JDK's HTTPS server and client (health and metrics endpoints). */
    public Optional<SSLContext> jdkContext()
    {
        return material.map(value -> value.jdkContext().get());
    }

    private static SSLContext buildJdkContext(KeyManagerFactory keyManagers, TrustManagerFactory trustManagers)
    {
        try {
            SSLContext context = SSLContext.getInstance("TLSv1.3");
            context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            return context;
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot set up TLS: " + e.getMessage(), e);
        }
    }

    private static SslContext build(SslContextBuilder builder)
    {
        try {
            return builder.build();
        }
        catch (SSLException e) {
            throw new IllegalStateException("Cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /** What the files hold, and the contexts built from it once, when first asked for. */
    private record Material(
            X509Certificate certificate,
            PeerIdentity identity,
            Supplier<SslContext> grpcServerContext,
            Supplier<SslContext> grpcClientContext,
            Supplier<SSLContext> jdkContext)
    {
        Material(X509Certificate certificate, PeerIdentity identity, KeyManagerFactory keyManagers, TrustManagerFactory trustManagers)
        {
            this(certificate,
                    identity,
                    // Client certificates are optional at the TLS layer so that a caller without one gets a
                    // clear UNAUTHENTICATED status from PeerAuthentication instead of a failed handshake.
                    memoize(() -> build(GrpcSslContexts.configure(SslContextBuilder.forServer(keyManagers))
                            .trustManager(trustManagers)
                            .clientAuth(ClientAuth.OPTIONAL)
                            .protocols(PROTOCOLS))),
                    memoize(() -> build(GrpcSslContexts.forClient()
                            .keyManager(keyManagers)
                            .trustManager(trustManagers)
                            .protocols(PROTOCOLS))),
                    memoize(() -> buildJdkContext(keyManagers, trustManagers)));
        }

        static Material load(TlsFiles files)
        {
            List<X509Certificate> chain = readCertificates(files.certificate());
            List<X509Certificate> authorities = readCertificates(files.ca());
            PrivateKey key = readPrivateKey(files.key());
            X509Certificate certificate = chain.getFirst();
            checkKeyMatches(key, certificate, files);
            PeerIdentity identity = PeerIdentity.fromCertificate(certificate)
                    .orElseThrow(() -> new IllegalArgumentException("Certificate %s names no nsc role (OU=nsc-metadata, nsc-storage or nsc-client) and name (CN): %s"
                            .formatted(files.certificate(), certificate.getSubjectX500Principal())));
            try {
                KeyStore keyStore = KeyStore.getInstance("PKCS12");
                keyStore.load(null, null);
                keyStore.setKeyEntry("key", key, NO_PASSWORD, chain.toArray(new Certificate[0]));
                KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keyManagers.init(keyStore, NO_PASSWORD);

                KeyStore trustStore = KeyStore.getInstance("PKCS12");
                trustStore.load(null, null);
                for (int i = 0; i < authorities.size(); i++) {
                    trustStore.setCertificateEntry("ca-" + i, authorities.get(i));
                }
                TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trustManagers.init(trustStore);
                return new Material(certificate, identity, keyManagers, trustManagers);
            }
            catch (GeneralSecurityException | IOException e) {
                throw new IllegalArgumentException("Key %s does not match certificate %s: %s".formatted(files.key(), files.certificate(), e.getMessage()), e);
            }
        }
    }

    // A mismatched pair would only fail at the first handshake, far from the file that is wrong.
    private static void checkKeyMatches(PrivateKey key, X509Certificate certificate, TlsFiles files)
    {
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            default -> key.getAlgorithm();
        };
        try {
            byte[] challenge = "nsc key check".getBytes(US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(challenge);
            if (verifier.verify(signature)) {
                return;
            }
        }
        catch (GeneralSecurityException e) {
            // a key of another algorithm than the certificate's: does not match either
        }
        throw new IllegalArgumentException("Key %s does not match certificate %s".formatted(files.key(), files.certificate()));
    }

    static List<X509Certificate> readCertificates(Path file)
    {
        try (InputStream in = Files.newInputStream(file)) {
            Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certificates.isEmpty()) {
                throw new IllegalArgumentException("No certificate in " + file);
            }
            return certificates.stream().map(X509Certificate.class::cast).toList();
        }
        catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("Cannot read certificates from %s: %s".formatted(file, e.getMessage()), e);
        }
    }

    static PrivateKey readPrivateKey(Path file)
    {
        String pem;
        try {
            pem = Files.readString(file, US_ASCII);
        }
        catch (IOException e) {
            throw new IllegalArgumentException("Cannot read private key %s: %s".formatted(file, e.getMessage()), e);
        }
        Matcher matcher = PRIVATE_KEY.matcher(pem);
        if (!matcher.find()) {
            throw new IllegalArgumentException("No PKCS#8 private key (BEGIN PRIVATE KEY) in " + file);
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(matcher.group(1)));
        for (String algorithm : List.of("EC", "RSA", "Ed25519")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            }
            catch (InvalidKeySpecException e) {
                // not this algorithm: try the next
            }
            catch (GeneralSecurityException e) {
                throw new IllegalArgumentException("Cannot read private key %s: %s".formatted(file, e.getMessage()), e);
            }
        }
        throw new IllegalArgumentException("Private key %s is neither EC, RSA nor Ed25519".formatted(file));
    }
}
