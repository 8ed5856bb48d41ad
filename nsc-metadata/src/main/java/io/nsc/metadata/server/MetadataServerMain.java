package io.nsc.metadata.server;

import io.airlift.log.Logger;

/**
 * Runs the metadata service until the JVM is asked to stop:
 * {@code java -Dconfig=etc/metadata.properties -cp ... io.nsc.metadata.server.MetadataServerMain}.
 * Airlift reads the properties file (and {@code log.*} settings) itself, and stops the service
 * from its shutdown hook.
 */
public final class MetadataServerMain
{
    private static final Logger log = Logger.get(MetadataServerMain.class);

    private MetadataServerMain() {}

    public static void main(String[] args)
            throws InterruptedException
    {
        try {
            MetadataServer.startFromConfigFile();
        }
        catch (Throwable e) {
            log.error(e, "The metadata service failed to start");
            System.exit(1);
        }
        // the endpoints' threads may all be daemons: keep the process up until it is stopped
        Thread.currentThread().join();
    }
}
