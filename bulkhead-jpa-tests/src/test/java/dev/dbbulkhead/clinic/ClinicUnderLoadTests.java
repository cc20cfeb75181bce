package dev.dbbulkhead.clinic;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.persistence.EntityManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The clinic under a load that saturates its gates, every page asked over HTTP, while a sampler counts the busy
 * sessions of its pool on the server: at no sample more than Σ B, whatever ran before the handlers — loaders, the
 * formatter — or instead of them — the cache. The pages without database work and the cached vets page are never
 * refused; the others answer or are refused with 503, never fail.
 */
class ClinicUnderLoadTests extends ClinicTest {

    /** Clients, each with an owner and a pet of its own. */
    private static final int CLIENTS = 8;

    /** Rounds of every page each client goes at the least. */
    private static final int ROUNDS = 10;

    /** Refusals the load must have met before it stops: proof that it saturated the gates. */
    private static final int REFUSALS = 50;

    @Autowired
    EntityManager entityManager;

    @Test
    void aSessionOfThePoolInsideAnAdmittedTransactionIsCountedBusyOnTheServer() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = Thread.ofVirtual().start(() -> registry.template("clinic").executeWithoutResult(status -> {
            entityManager.createNativeQuery("SELECT 1").getSingleResult();
            inside.countDown();
            awaitQuietly(release);
        }));
        inside.await();
        try {
            assertThat(BusySessions.now(APPLICATION_NAME).sessions()).containsExactly("idle in transaction: SELECT 1");
        } finally {
            release.countDown();
            holder.join();
        }
        assertThat(BusySessions.now(APPLICATION_NAME).busy()).as("after the commit").isZero();
    }

    @Test
    void underLoadOnEveryPageTheServerNeverShowsMoreBusySessionsOfThePoolThanTheGatesAdmit() throws Exception {
        assertThat(client.get("/vets.html").statusCode()).as("the vets' cache filled").isEqualTo(200);
        List<ClinicLoad.Patient> patients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            patients.add(ClinicLoad.Patient.of(ownerWithPet("Load", "Patient " + i), "c" + i));
        }

        ClinicLoad.Figures figures;
        List<BusySessions.Sample> samples;
        try (BusySessions busy = BusySessions.sample(APPLICATION_NAME)) {
            figures = ClinicLoad.start(client, patients, ClinicPages.ALL, ROUNDS, REFUSALS).stopOnceSaturated();
            samples = busy.samples();
        }

        int worst = samples.stream().mapToInt(BusySessions.Sample::busy).max().orElse(0);
        long above = samples.stream().filter(sample -> sample.busy() > gated()).count();
        Files.writeString(Path.of("target", "clinic-under-load.txt"), "answers by page and status: "
                + figures.answers() + "\nsamples: " + samples.size() + ", above Σ B: " + above + ", worst Σ busy: "
                + worst + ", Σ B: " + gated() + "\n");
        assertThat(samples).as("samples of the server").isNotEmpty().allSatisfy(sample -> assertThat(sample.busy())
                .as("busy sessions %s", sample.sessions()).isLessThanOrEqualTo(gated()));
        assertThat(figures.unexpected()).as("answers outside their page's, of %s; the first of each: %s",
                figures.answers(), figures.unexpectedBodies()).isEmpty();
        assertThat(figures.count(503)).isGreaterThanOrEqualTo(REFUSALS);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
