package io.nsc.protocol.security;

import java.util.Arrays;
import java.util.Optional;

/**
 * What a certificate lets its holder do. The role is the organizational unit of the certificate's
 * subject ({@code OU=nsc-storage}); the cluster CA signs each component's certificate with
 * exactly one role, so a role can only be claimed by someone holding a key the CA certified.
 */
public enum ComponentRole
{
    /** The metadata service: the catalog, placement and membership. */
    METADATA("nsc-metadata"),
    /** A storage node; its certificate's common name is its node id. */
    STORAGE("nsc-storage"),
    /** A reader or writer of tables: the Trino connector, the loader, ./nsc info. */
    CLIENT("nsc-client");

    private final String organizationalUnit;

    ComponentRole(String organizationalUnit)
    {
        this.organizationalUnit = organizationalUnit;
    }

    public String organizationalUnit()
    {
        return organizationalUnit;
    }

    public static Optional<ComponentRole> fromOrganizationalUnit(String organizationalUnit)
    {
        return Arrays.stream(values())
                .filter(role -> role.organizationalUnit.equals(organizationalUnit))
                .findFirst();
    }

    /** The role's name on the command line and in messages: {@code storage}, {@code client}, ... */
    public String displayName()
    {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static ComponentRole fromDisplayName(String name)
    {
        return Arrays.stream(values())
                .filter(role -> role.displayName().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown role '%s': expected metadata, storage or client".formatted(name)));
    }
}
