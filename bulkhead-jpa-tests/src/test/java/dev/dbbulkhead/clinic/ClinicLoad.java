package dev.dbbulkhead.clinic;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * Clients on virtual threads, each going round every page of the clinic for an owner and a pet of its own, one
 * request after the other, until stopped; every answer counted by page and status. The load is stopped once every
 * client has gone round a given number of times and the gates have refused a given number of requests: latches,
 * not time, decide when it has saturated the gates.
 */
final class ClinicLoad {

    /** The status counted for an exchange that failed without an answer. */
    static final int NO_ANSWER = -1;

    private final ConcurrentMap<String, ConcurrentMap<Integer, LongAdder>> answers = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, String> unexpectedBodies = new ConcurrentHashMap<>();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final List<Thread> clients = new ArrayList<>();
    private final List<Page> pages;
    private final CountDownLatch refusals;
    private final CountDownLatch rounds;

    /**
     * A page as a browser asks it: its name, its status when answered, whether a full gate may refuse it (with 503),
     * and the request.
     */
    record Page(String name, int answered, boolean refusable, Request request) {

        /** The statuses this page may answer. */
        Set<Integer> answers() {
            return refusable ? Set.of(answered, 503) : Set.of(answered);
        }
    }

    /** The request of a page for one client's owner and pet, in its {@code round}-th round. */
    @FunctionalInterface
    interface Request {
        HttpResponse<String> send(ClinicClient client, Patient patient, int round)
                throws IOException, InterruptedException;
    }

    /** A client's owner (by id and last name) and pet, and a tag that makes the names it posts its own. */
    record Patient(int ownerId, String lastName, int petId, String tag) {

        /** The owner {@link ClinicTest#ownerWithPet} saved, its first pet, and {@code tag}. */
        static Patient of(Owner owner, String tag) {
            return new Patient(owner.getId(), owner.getLastName(), owner.getPets().get(0).getId(), tag);
        }
    }

    /**
     * What the load was answered: by page, the count of each status; and the first body of each status a page may
     * not answer, by page and status.
     */
    record Figures(Map<String, Map<Integer, Long>> answers, Map<String, Set<Integer>> expected,
                   Map<String, String> unexpectedBodies) {

        /** The answers outside what their page may answer, by page. */
        Map<String, Map<Integer, Long>> unexpected() {
            Map<String, Map<Integer, Long>> unexpected = new TreeMap<>();
            answers.forEach((page, statuses) -> statuses.forEach((status, count) -> {
                if (!expected.get(page).contains(status)) {
                    unexpected.computeIfAbsent(page, any -> new TreeMap<>()).put(status, count);
                }
            }));
            return unexpected;
        }

        long count(int status) {
            return answers.values().stream().mapToLong(statuses -> statuses.getOrDefault(status, 0L)).sum();
        }
    }

    private ClinicLoad(List<Page> pages, int clients, int refusals) {
        this.pages = pages;
        this.refusals = new CountDownLatch(refusals);
        this.rounds = new CountDownLatch(clients);
    }

    /**
     * Starts one client per patient; the load saturates once each has gone round {@code rounds} times and
     * {@code refusals} requests were answered 503.
     */
    static ClinicLoad start(ClinicClient client, List<Patient> patients, List<Page> pages, int rounds,
                            int refusals) {
        ClinicLoad load = new ClinicLoad(pages, patients.size(), refusals);
        for (Patient patient : patients) {
            load.clients.add(Thread.ofVirtual().start(() -> load.goRound(client, patient, rounds)));
        }
        return load;
    }

    /** Waits until the load has saturated the gates, then stops it; what it was answered. */
    Figures stopOnceSaturated() throws InterruptedException {
        rounds.await();
        refusals.await();
        stopped.set(true);
        for (Thread client : clients) {
            client.join();
        }
        Map<String, Map<Integer, Long>> counted = new TreeMap<>();
        answers.forEach((page, statuses) -> counted.put(page, statuses.entrySet().stream().collect(
                Collectors.toMap(Map.Entry::getKey, count -> count.getValue().sum(), Long::sum, TreeMap::new))));
        return new Figures(counted, pages.stream().collect(Collectors.toMap(Page::name, Page::answers)),
                new TreeMap<>(unexpectedBodies));
    }

    private void goRound(ClinicClient client, Patient patient, int roundsToSaturate) {
        for (int round = 0; !stopped.get(); round++) {
            for (Page page : pages) {
                count(page, answer(client, patient, round, page));
            }
            if (round + 1 == roundsToSaturate) {
                rounds.countDown();
            }
        }
    }

    /** The status and the body of the page's answer; {@link #NO_ANSWER} and the failure if none came. */
    private static Map.Entry<Integer, String> answer(ClinicClient client, Patient patient, int round, Page page) {
        try {
            HttpResponse<String> answer = page.request().send(client, patient, round);
            return Map.entry(answer.statusCode(), answer.body());
        } catch (IOException failed) {
            return Map.entry(NO_ANSWER, failed.toString());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return Map.entry(NO_ANSWER, interrupted.toString());
        }
    }

    private void count(Page page, Map.Entry<Integer, String> answer) {
        int status = answer.getKey();
        answers.computeIfAbsent(page.name(), any -> new ConcurrentHashMap<>())
                .computeIfAbsent(status, any -> new LongAdder()).increment();
        if (!page.answers().contains(status)) {
            unexpectedBodies.putIfAbsent(page.name() + " " + status, answer.getValue());
        }
        if (status == 503) {
            refusals.countDown();
        }
    }
}
