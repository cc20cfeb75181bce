package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.testing.RepositoryFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The how-tos' configurations, read from their pages as written, run under overload in the simulator with the real
 * scheduling code: each page's promise must hold at the numbers it shows. Operations take the how-tos' own timing
 * (about 23 ms, drawn from half to one and a half times that).
 */
class HowTosUnderOverloadSimulatedTests {

    private static final long MS = 1_000_000L;
    private static final OperationTimes HOW_TO_TIMES = new OperationTimes(OperationTimes.Shape.UNIFORM, 23 * MS);
    private static final long HORIZON = 120_000 * MS;

    @Test
    void theMultiTenantHowTosQuietTenantIsServedBesideANoisyOneAtThreeTimesCapacity() throws IOException {
        PageBlock page = PageBlock.of("docs/how-to/a-multi-tenant-service.md", "fair-share:");
        assertThat(page.value("enabled")).isEqualTo("true");
        AdmissionRules rules = AdmissionRules.builder().fairShares(true).keyWeights(page.weights()).build();
        double capacity = page.maxConcurrent() * 1e9 / HOW_TO_TIMES.meanNanos();
        List<SimulatedFlow> flows = List.of(poisson("noisy", Criticality.DEFAULT, 2.8 * capacity, 1),
                poisson("quiet", Criticality.DEFAULT, 0.2 * capacity, 1));

        SimulationResult result = run(page, rules, flows, 61);

        assertThat(result.servedFraction(1)).as("the quiet tenant, page's promise: its next operation before the backlog")
                .isGreaterThanOrEqualTo(0.95);
    }

    @Test
    void theMultiTenantHowTosWeightedTenantGetsItsWeightedShareWhileAnotherWantsItsOwn() throws IOException {
        PageBlock page = PageBlock.of("docs/how-to/a-multi-tenant-service.md", "fair-share:");
        Map<String, Integer> weights = page.weights();
        String weighted = weights.keySet().iterator().next();
        AdmissionRules rules = AdmissionRules.builder().fairShares(true).keyWeights(weights).build();
        double capacity = page.maxConcurrent() * 1e9 / HOW_TO_TIMES.meanNanos();
        List<SimulatedFlow> flows = List.of(poisson(weighted, Criticality.DEFAULT, 1.5 * capacity, 1),
                poisson("another", Criticality.DEFAULT, 1.5 * capacity, 1));

        SimulationResult result = run(page, rules, flows, 64);

        double share = (double) result.served[0] / (result.served[0] + result.served[1]);
        int weight = weights.get(weighted);
        assertThat(share).as("the page's promise: w / W of the places, W the weights of the tenants waiting")
                .isCloseTo((double) weight / (weight + 1), org.assertj.core.data.Offset.offset(0.05));
    }

    @Test
    void theCheckoutHowTosCriticalWorkIsServedAtThreeTimesOverloadWithSheddableWorkArrivingFirst() throws IOException {
        PageBlock page = PageBlock.of("docs/how-to/protecting-checkout-from-batch-work.md", "critical-reserve:");
        AdmissionRules rules = AdmissionRules.builder()
                .criticalReserve(Double.parseDouble(page.value("critical-reserve")))
                .sheddableReserve(Double.parseDouble(page.value("sheddable-reserve")))
                .inProgressFirst(Boolean.parseBoolean(page.value("in-progress-first"))).build();
        double capacity = page.maxConcurrent() * 1e9 / HOW_TO_TIMES.meanNanos();
        // Requests of one to three operations; the flows' operations add up to three times the capacity, most of them
        // sheddable, which is offered first in every instant the queue has room.
        List<SimulatedFlow> flows = List.of(poisson("prefetch", Criticality.SHEDDABLE, 2.7 * capacity, 3),
                poisson("export", Criticality.DEFAULT, 0.25 * capacity, 3),
                poisson("checkout", Criticality.CRITICAL, 0.05 * capacity, 3));

        SimulationResult result = run(page, rules, flows, 62);

        assertThat(result.servedFraction(2)).as("critical operations, the page's promise").isGreaterThanOrEqualTo(0.99);
    }

    @Test
    void theSpringMvcHowTosPagesOfManyOperationsAreRefusedAboutAsOftenAsPagesOfOneAtThreeTimesCapacity()
            throws IOException {
        PageBlock page = PageBlock.of("docs/how-to/spring-mvc-applications.md", "default-workload:").workload("web");
        // With a default workload, requests in progress go first unless a workload says otherwise.
        AdmissionRules rules = AdmissionRules.builder().inProgressFirst(true).build();
        double capacity = page.maxConcurrent() * 1e9 / HOW_TO_TIMES.meanNanos();
        List<SimulatedFlow> flows = List.of(poisson("forms", Criticality.DEFAULT, 1.5 * capacity, 8),
                poisson("pages", Criticality.DEFAULT, 1.5 * capacity, 1));

        SimulationResult result = run(page, rules, flows, 63);

        double formsRefused = 1 - (double) result.requestsServed[0] / result.requestsOffered[0];
        double pagesRefused = 1 - (double) result.requestsServed[1] / result.requestsOffered[1];
        System.out.printf("requests refused: forms of 1-8 operations %.2f %%, pages of one %.2f %%%n",
                100 * formsRefused, 100 * pagesRefused);
        assertThat(formsRefused).as("the page's promise: a page of many operations refused as often as one")
                .isLessThanOrEqualTo(1.2 * pagesRefused);
    }

    private static SimulationResult run(PageBlock page, AdmissionRules rules, List<SimulatedFlow> flows, long seed) {
        SimulatedWorkload workload = new SimulatedWorkload(seed, page.maxConcurrent(),
                Integer.parseInt(page.value("max-queued")), page.queueWaitNanos(), HOW_TO_TIMES, flows, rules, 0, 0.0,
                HORIZON);
        double offered = flows.stream().mapToDouble(SimulatedFlow::operationsPerSecond).sum();
        assertThat(offered / workload.capacityPerSecond()).as("overload").isBetween(2.9, 3.1);
        MaxMinShares shares = new MaxMinShares(flows, workload.capacityPerSecond());
        SimulationResult result = SchedulerSimulation.run(workload, new SchedulerOrder(flows, rules), shares, true);
        StringBuilder line = new StringBuilder(page.path);
        for (int f = 0; f < flows.size(); f++) {
            line.append(String.format(" %s %.2f %%", flows.get(f).key(), 100 * result.servedFraction(f)));
        }
        System.out.println(line + "; " + workload.describe());
        return result;
    }

    private static SimulatedFlow poisson(String key, Criticality criticality, double operationsPerSecond,
                                         int maxOperations) {
        double requestsPerSecond = operationsPerSecond * 2.0 / (1 + maxOperations);
        return new SimulatedFlow(key, 1, criticality, SimulatedFlow.ArrivalProcess.POISSON, requestsPerSecond,
                maxOperations, 0);
    }

    /** The YAML block of a how-to that holds a marker, read line by line as the page writes it. */
    private record PageBlock(String path, String yaml) {

        private static final Pattern YAML_BLOCK = Pattern.compile("```ya?ml\n(.*?)```", Pattern.DOTALL);

        static PageBlock of(String path, String marker) throws IOException {
            Matcher block = YAML_BLOCK.matcher(Files.readString(RepositoryFiles.path(path)));
            while (block.find()) {
                if (block.group(1).contains(marker)) {
                    return new PageBlock(path, block.group(1));
                }
            }
            throw new AssertionError(path + " shows no YAML block with " + marker);
        }

        /** The settings of a workload written on one line, {@code web: { max-concurrent: 6, ... }}. */
        PageBlock workload(String name) {
            Matcher line = Pattern.compile("(?m)^\\s*" + Pattern.quote(name) + ":\\s*\\{(.*)}").matcher(yaml);
            if (!line.find()) {
                throw new AssertionError(path + " writes no workload " + name + " on one line in\n" + yaml);
            }
            return new PageBlock(path, line.group(1));
        }

        /** The value written for {@code key}, on a line of its own or in a one-line map, its comment left out. */
        String value(String key) {
            Matcher written = Pattern.compile("(?m)(^|[{,])\\s*" + Pattern.quote(key) + ":\\s*([^,}#\\n]*?)\\s*([,}#]|$)")
                    .matcher(yaml);
            if (!written.find()) {
                throw new AssertionError(path + " sets no " + key + " in\n" + yaml);
            }
            return written.group(2);
        }

        int maxConcurrent() {
            return Integer.parseInt(value("max-concurrent"));
        }

        long queueWaitNanos() {
            String written = value("queue-wait");
            assertThat(written).as("a wait written in milliseconds").endsWith("ms");
            return Duration.ofMillis(Long.parseLong(written.substring(0, written.length() - 2))).toNanos();
        }

        /** {@code weights: { tenant: 3 }}, as written. */
        Map<String, Integer> weights() {
            Map<String, Integer> weights = new LinkedHashMap<>();
            String written = value("weights").replaceAll("[{}]", "");
            for (String entry : written.split(",")) {
                String[] pair = entry.split(":");
                weights.put(pair[0].trim(), Integer.parseInt(pair[1].trim()));
            }
            return weights;
        }
    }
}
