package io.nsc.protocol.security;

import com.google.common.net.InetAddresses;
import com.google.common.net.InternetDomainName;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import static com.google.common.base.Preconditions.checkArgument;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.util.Objects.requireNonNull;

/**
 * A cluster's certificate authority as a directory of PEM files: {@code ca.pem} and
 * {@code ca.key}, then {@code <name>.pem} (the component's certificate followed by the CA's) and
 * {@code <name>.key} per component. Issuing is idempotent: a certificate that exists, is the
 * CA's, names the same role and is valid for {@link #RENEW_BEFORE} more is kept, so launchers
 * may call it on every start. Besides the components of nsc, the CA certifies TLS servers outside
 * nsc that its components connect to (the PostgreSQL server of the catalog): {@link #issueServer}.
 */
public final class ClusterCertificates
{
    public static final Duration CA_VALIDITY = Duration.ofDays(3650);
    public static final Duration COMPONENT_VALIDITY = Duration.ofDays(365);
    public static final Duration RENEW_BEFORE = Duration.ofDays(30);
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");
    private static final String SIGNATURE = "SHA256withECDSA";
    /**
     * The organizational unit of a TLS server outside nsc: no {@link ComponentRole}, so nsc's
     * services take its holder for nobody ({@link PeerIdentity#fromCertificate} finds no role).
     */
    public static final String TLS_SERVER_UNIT = "tls-server";
    /** The kind of such a certificate on the command line and in messages, beside the roles' names. */
    public static final String TLS_SERVER_KIND = "server";

    private final Path directory;
    private final X509Certificate caCertificate;
    private final PrivateKey caKey;
    private final SecureRandom random = new SecureRandom();

    private ClusterCertificates(Path directory, X509Certificate caCertificate, PrivateKey caKey)
    {
        this.directory = requireNonNull(directory, "directory is null");
        this.caCertificate = requireNonNull(caCertificate, "caCertificate is null");
        this.caKey = requireNonNull(caKey, "caKey is null");
    }

    /** Opens the CA in {@code directory}, creating the directory and a new CA when there is none. */
    public static ClusterCertificates openOrCreate(Path directory)
    {
        try {
            Files.createDirectories(directory);
            Path certificate = directory.resolve("ca.pem");
            Path key = directory.resolve("ca.key");
            if (Files.exists(certificate) != Files.exists(key)) {
                throw new IllegalArgumentException("%s has only one of ca.pem and ca.key: restore the other, or remove both to create a new CA (and reissue every certificate)".formatted(directory));
            }
            if (Files.exists(certificate)) {
                return new ClusterCertificates(directory, TransportSecurity.readCertificates(certificate).getFirst(), TransportSecurity.readPrivateKey(key));
            }
            KeyPair pair = newKeyPair();
            X500Name subject = new X500NameBuilder(BCStyle.INSTANCE)
                    .addRDN(BCStyle.O, "nsc")
                    .addRDN(BCStyle.CN, "nsc cluster CA " + Long.toHexString(new SecureRandom().nextLong()))
                    .build();
            Instant now = Instant.now();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject, serial(new SecureRandom()), Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(CA_VALIDITY)), subject, pair.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false, new JcaX509ExtensionUtils().createSubjectKeyIdentifier(pair.getPublic()));
            X509Certificate ca = sign(builder, pair.getPrivate());
            writePrivate(key, pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
            writePublic(certificate, pem("CERTIFICATE", ca.getEncoded()));
            return new ClusterCertificates(directory, ca, pair.getPrivate());
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot create the cluster CA in " + directory, e);
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot create the cluster CA: " + e.getMessage(), e);
        }
    }

    public Path caFile()
    {
        return directory.resolve("ca.pem");
    }

    /**
     * The certificate and key of one component, issued now unless a usable one exists.
     *
     * @param hosts names and addresses the component serves under besides localhost and 127.0.0.1
     */
    public TlsFiles issue(ComponentRole role, String name, Collection<String> hosts)
    {
        requireNonNull(role, "role is null");
        return issue(Optional.of(role), name, hosts);
    }

    /**
     * The certificate and key of a TLS server outside nsc that components connect to and verify
     * by the cluster CA (PostgreSQL with {@code sslmode=verify-full}), issued now unless a usable
     * one exists. It serves only: its extended key usage is server authentication alone, and its
     * subject names no nsc role, so it authenticates to none of nsc's services.
     *
     * @param hosts names and addresses the server is reached by besides localhost and 127.0.0.1
     */
    public TlsFiles issueServer(String name, Collection<String> hosts)
    {
        return issue(Optional.empty(), name, hosts);
    }

    private TlsFiles issue(Optional<ComponentRole> role, String name, Collection<String> hosts)
    {
        checkArgument(NAME.matcher(name).matches(), "Certificate name '%s' must be 1-63 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit", name);
        TlsFiles files = new TlsFiles(directory.resolve(name + ".pem"), directory.resolve(name + ".key"), caFile());
        if (isUsable(files, role, name, Set.copyOf(hosts))) {
            return files;
        }
        try {
            KeyPair pair = newKeyPair();
            X500Name subject = new X500NameBuilder(BCStyle.INSTANCE)
                    .addRDN(BCStyle.O, "nsc")
                    .addRDN(BCStyle.OU, role.map(ComponentRole::organizationalUnit).orElse(TLS_SERVER_UNIT))
                    .addRDN(BCStyle.CN, name)
                    .build();
            Instant now = Instant.now();
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(caCertificate, serial(random), Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(COMPONENT_VALIDITY)), subject, pair.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement))
                    .addExtension(Extension.extendedKeyUsage, false, role.isPresent()
                            ? new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth})
                            : new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                    .addExtension(Extension.subjectAlternativeName, false, subjectAlternativeNames(name, hosts))
                    .addExtension(Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(pair.getPublic()))
                    .addExtension(Extension.authorityKeyIdentifier, false, extensions.createAuthorityKeyIdentifier(caCertificate));
            X509Certificate certificate = sign(builder, caKey);
            writePrivate(files.key(), pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
            writePublic(files.certificate(), pem("CERTIFICATE", certificate.getEncoded()) + pem("CERTIFICATE", caCertificate.getEncoded()));
            return files;
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot write the certificate of " + name, e);
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot issue a certificate for %s: %s".formatted(name, e.getMessage()), e);
        }
    }

    private boolean isUsable(TlsFiles files, Optional<ComponentRole> role, String name, Set<String> hosts)
    {
        if (!Files.exists(files.certificate()) || !Files.exists(files.key())) {
            return false;
        }
        X509Certificate existing = TransportSecurity.readCertificates(files.certificate()).getFirst();
        PeerIdentity identity = PeerIdentity.fromCertificate(existing).orElse(null);
        boolean server = identity == null && isTlsServer(existing, name);
        // a name cannot change kind: a server's certificate reissued as a client's would let the
        // server's host call nsc, and the other way round
        if ((identity != null && !role.equals(Optional.of(identity.role()))) || (server && role.isPresent())) {
            throw new IllegalArgumentException("%s is already the certificate of a %s, not a %s: choose another name".formatted(
                    files.certificate(), identity != null ? identity.role().displayName() : TLS_SERVER_KIND, role.map(ComponentRole::displayName).orElse(TLS_SERVER_KIND)));
        }
        try {
            existing.verify(caCertificate.getPublicKey());
            existing.checkValidity(Date.from(Instant.now().plus(RENEW_BEFORE)));
            boolean sameIdentity = role.isPresent() ? identity != null && identity.name().equals(name) : server;
            return sameIdentity && existing.getSubjectAlternativeNames().stream()
                    .map(entry -> String.valueOf(entry.get(1)))
                    .toList()
                    .containsAll(hosts.stream().map(ClusterCertificates::normalizedHost).toList());
        }
        catch (GeneralSecurityException e) {
            // another CA's, expiring or unreadable: issue a new one
            return false;
        }
    }

    /** Whether a certificate is one {@link #issueServer} made for {@code name}: O=nsc, OU=tls-server, CN=name. */
    private static boolean isTlsServer(X509Certificate certificate, String name)
    {
        X500Name subject = X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded());
        return value(subject, BCStyle.OU).equals(Optional.of(TLS_SERVER_UNIT)) && value(subject, BCStyle.CN).equals(Optional.of(name));
    }

    private static Optional<String> value(X500Name name, ASN1ObjectIdentifier type)
    {
        return Arrays.stream(name.getRDNs(type))
                .map(rdn -> rdn.getFirst().getValue().toString())
                .findFirst();
    }

    private static GeneralNames subjectAlternativeNames(String name, Collection<String> hosts)
    {
        Set<String> all = new LinkedHashSet<>(List.of("localhost", "127.0.0.1"));
        if (InternetDomainName.isValid(name)) {
            all.add(name);
        }
        hosts.stream().map(ClusterCertificates::normalizedHost).forEach(all::add);
        List<GeneralName> names = new ArrayList<>();
        for (String host : all) {
            names.add(InetAddresses.isInetAddress(host) ? new GeneralName(GeneralName.iPAddress, host) : new GeneralName(GeneralName.dNSName, host));
        }
        return new GeneralNames(names.toArray(new GeneralName[0]));
    }

    private static String normalizedHost(String host)
    {
        if (InetAddresses.isInetAddress(host)) {
            return InetAddresses.toAddrString(InetAddresses.forString(host));
        }
        checkArgument(InternetDomainName.isValid(host), "'%s' is neither a host name nor an IP address", host);
        return host;
    }

    private static KeyPair newKeyPair()
            throws GeneralSecurityException
    {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static BigInteger serial(SecureRandom random)
    {
        return new BigInteger(127, random).add(BigInteger.ONE);
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key)
            throws GeneralSecurityException
    {
        try {
            return new JcaX509CertificateConverter().getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE).build(key)));
        }
        catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    private static String pem(String type, byte[] der)
    {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(US_ASCII)).encodeToString(der);
        return "-----BEGIN %s-----\n%s\n-----END %s-----\n".formatted(type, body, type);
    }

    private static void writePrivate(Path file, String content)
            throws IOException
    {
        Path temporary = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(temporary, content, US_ASCII);
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void writePublic(Path file, String content)
            throws IOException
    {
        Path temporary = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
        Files.writeString(temporary, content, US_ASCII);
        Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-r--r--"));
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
