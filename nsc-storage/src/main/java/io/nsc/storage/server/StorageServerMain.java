package io.nsc.storage.server;

import io.airlift.log.Logger;

import java.util.concurrent.CountDownLatch;

/** Runs a storage node: {@code java -Dconfig=etc/storage.properties io.nsc.storage.server.StorageServerMain}. */
public final class StorageServerMain
{
    private StorageServerMain() {}

    public static void main(String[] args)
            throws InterruptedException
    {
        StorageServer server;
        try {
            server = StorageServer.startFromConfigFile();
        }
        catch (Throwable t) {
            Logger.get(StorageServerMain.class).error(t, "Storage node failed to start");
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "nsc-storage-shutdown"));
        // the gRPC and HTTP threads are daemons: keep the JVM alive until it is told to stop
        new CountDownLatch(1).await();
    }
}
