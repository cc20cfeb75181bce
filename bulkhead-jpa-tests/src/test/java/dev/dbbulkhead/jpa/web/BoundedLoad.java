package dev.dbbulkhead.jpa.web;

import com.zaxxer.hikari.HikariPoolMXBean;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A bounded load on loopback: {@code clients} virtual threads each send {@code requestsPerClient} GETs one after
 * the other, while a sampler reads the pool's active connections over and over until the last answer arrived.
 */
final class BoundedLoad {

    /** Between two samples of the pool: a measurement's period; no assertion depends on it. */
    private static final long SAMPLE_PERIOD_NANOS = 50_000;

    private BoundedLoad() {
    }

    /**
     * What one load saw.
     *
     * @param requests   requests sent
     * @param ok         answered 200
     * @param rejected   answered 503 (refused at the gate)
     * @param errors     any other answer or a failed exchange
     * @param maxActive  the most active connections of the pool at one sample
     * @param samples    samples taken
     * @param overBudget samples with more active connections than the gates admit at once
     */
    record Figures(long requests, long ok, long rejected, long errors, int maxActive, long samples,
                   long overBudget) {

        String describe(String label, int gated) {
            return label + ": requests=" + requests + " ok=" + ok + " rejected=" + rejected + " errors=" + errors
                    + " highestActive=" + maxActive + " ΣB=" + gated + " samples=" + samples + " samplesAboveΣB="
                    + overBudget;
        }
    }

    static Figures run(HttpClient http, URI uri, int clients, int requestsPerClient, HikariPoolMXBean pool,
                       int gated) throws InterruptedException {
        AtomicLong ok = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        long[] sampled = new long[2];
        int[] highest = new int[1];
        Thread sampler = Thread.ofPlatform().start(() -> {
            while (!done.get()) {
                int active = pool.getActiveConnections();
                highest[0] = Math.max(highest[0], active);
                sampled[0]++;
                if (active > gated) {
                    sampled[1]++;
                }
                LockSupport.parkNanos(SAMPLE_PERIOD_NANOS);
            }
        });
        List<Thread> senders = new ArrayList<>();
        HttpRequest request = HttpRequest.newBuilder(uri).GET().build();
        for (int client = 0; client < clients; client++) {
            senders.add(Thread.ofVirtual().start(() -> {
                for (int i = 0; i < requestsPerClient; i++) {
                    try {
                        int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                        (status == 200 ? ok : status == 503 ? rejected : errors).incrementAndGet();
                    } catch (IOException failed) {
                        errors.incrementAndGet();
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }));
        }
        for (Thread sender : senders) {
            sender.join();
        }
        done.set(true);
        sampler.join();
        return new Figures((long) clients * requestsPerClient, ok.get(), rejected.get(), errors.get(), highest[0],
                sampled[0], sampled[1]);
    }
}
