package dev.dbbulkhead.fleettests;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A TCP proxy on loopback between one instance and the database, which the test can {@link #cut()} and
 * {@link #heal()} as a network partition would: while cut nothing is forwarded either way, yet every socket stays
 * open, so neither side learns that the other is out of reach (no FIN, no RST: the database's sessions stay open
 * until something on the server ends them). Bytes read before or during the cut are delivered once it heals, as TCP
 * retransmission would deliver them, and a close on either side reaches the other side only then. A connection
 * opened during the cut never reaches the server: it is held, as a SYN lost in a partition would leave its
 * sender waiting, and closed when the cut heals.
 */
final class TcpProxy implements AutoCloseable {

    private static final int BUFFER = 16 * 1024;

    private final String name;
    private final InetSocketAddress upstream;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final List<Socket> heldDuringCut = new ArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition healed = lock.newCondition();
    private final Thread acceptor;
    private boolean cut;
    private volatile boolean closed;

    /** Listens on a free loopback port and forwards every connection to {@code upstreamPort} on localhost. */
    TcpProxy(String name, int upstreamPort) {
        this.name = name;
        try {
            this.upstream = new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort);
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not open the proxy " + name, e);
        }
        this.acceptor = Thread.ofPlatform().daemon().name("proxy-" + name + "-accept").start(this::acceptInALoop);
    }

    /** The port clients connect to. */
    int port() {
        return listener.getLocalPort();
    }

    /** Stops forwarding, both ways, and holds new connections; all sockets stay open. */
    void cut() {
        lock.lock();
        try {
            cut = true;
        } finally {
            lock.unlock();
        }
    }

    /** Forwards again what waited, closes the connections opened during the cut. */
    void heal() {
        List<Socket> held;
        lock.lock();
        try {
            cut = false;
            held = List.copyOf(heldDuringCut);
            heldDuringCut.clear();
            healed.signalAll();
        } finally {
            lock.unlock();
        }
        held.forEach(this::closeQuietly);
    }

    boolean isCut() {
        lock.lock();
        try {
            return cut;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        heal();
        for (Socket socket : List.copyOf(sockets)) {
            closeQuietly(socket);
        }
        try {
            acceptor.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "proxy " + name + " :" + port() + " → :" + upstream.getPort() + (isCut() ? " (cut)" : "");
    }

    private void acceptInALoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                // Closed: the proxy is done.
                return;
            }
            if (holdIfCut(client)) {
                continue;
            }
            Socket server = new Socket();
            try {
                server.connect(upstream);
            } catch (IOException refused) {
                // The database is down (restarting): the client sees its connection closed, as it would by the server.
                closeQuietly(client);
                closeQuietly(server);
                continue;
            }
            sockets.add(client);
            sockets.add(server);
            Thread.ofVirtual().name("proxy-" + name + "-up").start(() -> pump(client, server));
            Thread.ofVirtual().name("proxy-" + name + "-down").start(() -> pump(server, client));
        }
    }

    private boolean holdIfCut(Socket client) {
        lock.lock();
        try {
            if (cut) {
                heldDuringCut.add(client);
            }
            return cut;
        } finally {
            lock.unlock();
        }
    }

    /** Copies {@code from} to {@code to}, each chunk and the end of the stream only while not cut. */
    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[BUFFER];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                awaitHealed();
                out.write(buffer, 0, read);
            }
            awaitHealed();
            to.shutdownOutput();
        } catch (IOException | InterruptedException broken) {
            // A reset or a close on either side, or the proxy closing: both ends go, as a broken connection does.
            closeQuietly(from);
            closeQuietly(to);
            return;
        }
        if (from.isOutputShutdown()) {
            // The other direction ended first: the connection is over.
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void awaitHealed() throws InterruptedException {
        lock.lock();
        try {
            while (cut && !closed) {
                healed.await();
            }
        } finally {
            lock.unlock();
        }
    }

    private void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // Closing what is already broken: nothing left to do.
        }
        if (closeable instanceof Socket socket) {
            sockets.remove(socket);
        }
    }
}
