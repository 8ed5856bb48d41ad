package io.nsc.protocol.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP proxy in front of a test server that can be killed like a process: {@link #kill()} resets
 * every connection and refuses new ones. A gRPC server shut down in-process answers its calls in
 * flight with CANCELLED; a process that dies leaves its clients with broken connections
 * (UNAVAILABLE), which is what failover must handle.
 */
public final class KillableProxy
        implements AutoCloseable
{
    private final ServerSocket listener;
    private final int targetPort;
    // guarded by this: a connection accepted while the proxy is killed must not outlive the kill
    private final Set<Socket> sockets = new HashSet<>();
    private boolean killed;
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "killable-proxy");
        thread.setDaemon(true);
        return thread;
    });

    private KillableProxy(ServerSocket listener, int targetPort)
    {
        this.listener = listener;
        this.targetPort = targetPort;
    }

    /** Listens on a free port of 127.0.0.1 and forwards every connection to {@code 127.0.0.1:targetPort}. */
    public static KillableProxy start(int targetPort)
    {
        try {
            ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            KillableProxy proxy = new KillableProxy(listener, targetPort);
            proxy.threads.execute(proxy::accept);
            return proxy;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port()
    {
        return listener.getLocalPort();
    }

    public String address()
    {
        return "127.0.0.1:" + port();
    }

    /** Resets every connection and closes the port: connecting to it is refused from now on. */
    public synchronized void kill()
    {
        killed = true;
        try {
            listener.close();
        }
        catch (IOException ignored) {
            // closing is all that is wanted
        }
        sockets.forEach(KillableProxy::reset);
        sockets.clear();
    }

    @Override
    public void close()
    {
        kill();
        threads.shutdownNow();
    }

    private void accept()
    {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
                if (register(client, server)) {
                    threads.execute(() -> pipe(client, server));
                    threads.execute(() -> pipe(server, client));
                }
            }
            catch (IOException e) {
                // killed, or the target refused: the client sees its connection closed
            }
        }
    }

    /** Keeps the connection's sockets for {@link #kill()}; resets them when the proxy is already killed. */
    private synchronized boolean register(Socket client, Socket server)
    {
        if (killed) {
            reset(client);
            reset(server);
            return false;
        }
        sockets.add(client);
        sockets.add(server);
        return true;
    }

    private static void pipe(Socket from, Socket to)
    {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                out.write(buffer, 0, read);
                out.flush();
            }
        }
        catch (IOException e) {
            // a reset on either side ends the connection
        }
        reset(from);
        reset(to);
    }

    private static void reset(Socket socket)
    {
        try {
            // linger 0: close sends RST, like the kernel does for a killed process's sockets
            socket.setSoLinger(true, 0);
            socket.close();
        }
        catch (IOException ignored) {
            // already closed
        }
    }
}
