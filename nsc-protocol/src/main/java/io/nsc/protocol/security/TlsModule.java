package io.nsc.protocol.security;

import com.google.inject.Binder;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import io.airlift.log.Logger;

import static io.airlift.configuration.ConfigBinder.configBinder;
import static java.util.Objects.requireNonNull;

/**
 * Binds a component's {@link TlsConfig} under its prefix and provides the {@link TransportSecurity}
 * every endpoint and client of the component uses.
 */
public final class TlsModule
        implements Module
{
    private static final Logger log = Logger.get(TlsModule.class);

    private final String prefix;

    public TlsModule(String prefix)
    {
        this.prefix = requireNonNull(prefix, "prefix is null");
    }

    @Override
    public void configure(Binder binder)
    {
        configBinder(binder).bindConfig(TlsConfig.class, prefix);
    }

    @Provides
    @Singleton
    public TransportSecurity createTransportSecurity(TlsConfig config)
    {
        TransportSecurity security = config.toTransportSecurity();
        if (security.isInsecure()) {
            log.warn("INSECURE: %s.tls.insecure=true: no TLS, no authentication. Anyone who reaches this component's ports, or whom it connects to, can read, write and delete every table", prefix);
        }
        else {
            log.info("TLS as %s, certificate valid until %s", security.ownIdentity().orElseThrow(), security.certificateExpiry().orElseThrow());
        }
        return security;
    }
}
