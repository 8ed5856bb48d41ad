package io.nsc.trino;

import org.weakref.jmx.MBeanExporter;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;

/**
 * An object exported as the connector exports it (jmxutils, {@code @Managed} and {@code @Nested}),
 * in an MBeanServer of its own rather than the JVM's, which other tests' connectors share: its
 * attributes under the names JMX shows, e.g. {@code CacheStats.HitCount}.
 */
public final class ExportedMBean
{
    private final MBeanServer server = MBeanServerFactory.newMBeanServer();
    private final ObjectName name;

    public ExportedMBean(Object object)
    {
        try {
            name = ObjectName.getInstance("test:name=" + object.getClass().getSimpleName());
        }
        catch (JMException e) {
            throw new IllegalArgumentException(e);
        }
        new MBeanExporter(server).export(name, object);
    }

    public Object attribute(String attribute)
    {
        try {
            return server.getAttribute(name, attribute);
        }
        catch (JMException e) {
            throw new AssertionError("no attribute %s in %s".formatted(attribute, name), e);
        }
    }

    public long longAttribute(String attribute)
    {
        return ((Number) attribute(attribute)).longValue();
    }
}
