package io.nsc.protocol.security;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

import java.security.cert.X509Certificate;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * Who is on the other end of a mutually authenticated connection, as its certificate says:
 * the role ({@code OU}) and the name ({@code CN}, a storage node's id).
 */
public record PeerIdentity(ComponentRole role, String name)
{
    public PeerIdentity
    {
        requireNonNull(role, "role is null");
        requireNonNull(name, "name is null");
        checkArgument(!name.isEmpty(), "name is empty");
    }

    /** The identity a certificate carries, or empty when its subject names no nsc role. */
    public static Optional<PeerIdentity> fromCertificate(X509Certificate certificate)
    {
        LdapName subject;
        try {
            subject = new LdapName(certificate.getSubjectX500Principal().getName());
        }
        catch (InvalidNameException e) {
            return Optional.empty();
        }
        Optional<ComponentRole> role = Optional.empty();
        Optional<String> name = Optional.empty();
        for (Rdn rdn : subject.getRdns()) {
            String value = String.valueOf(rdn.getValue());
            switch (rdn.getType().toUpperCase(java.util.Locale.ROOT)) {
                case "OU" -> role = role.or(() -> ComponentRole.fromOrganizationalUnit(value));
                case "CN" -> name = Optional.of(value).filter(text -> !text.isEmpty());
                default -> {}
            }
        }
        if (role.isEmpty() || name.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new PeerIdentity(role.get(), name.get()));
    }

    @Override
    public String toString()
    {
        return role.displayName() + ":" + name;
    }
}
