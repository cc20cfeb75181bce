package dev.dbbulkhead.sample.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.sample.load.LoadCommand.Phase;
import dev.dbbulkhead.sample.load.LoadCommand.SchedulingLag;
import dev.dbbulkhead.sample.load.LoadCommand.Stats;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the load command judges its own run: the expected shape, and whether the machine let it judge at all. */
class LoadCommandTests {

    @Test
    void aRunOnAQuietMachineShowsNoSignOfABusyOne() {
        List<Phase> phases = List.of(phase("orders alone", 100, 100, 0), phase("flooded", 100, 100, 0));
        phases.forEach(phase -> phase.serverLoad = new double[] {0.8, 2});

        assertThat(LoadCommand.busyMachineSigns(phases, lagOf(1_000, 200))).isEmpty();
    }

    @Test
    void aClientWhoseThreadsWokeLateSaysTheMachineWasTooBusy() {
        SchedulingLag lag = lagOf(1_000, 90);
        for (int i = 0; i < 10; i++) {
            lag.record(60_000);
        }

        assertThat(LoadCommand.busyMachineSigns(List.of(phase("orders alone", 100, 100, 0)), lag))
                .singleElement().asString().contains("woke up to 60 ms late");
    }

    @Test
    void offersSentLateAreReportedAsLoadThatWasNotOffered() {
        List<Phase> phases = List.of(phase("orders alone", 200, 200, 35));

        assertThat(LoadCommand.busyMachineSigns(phases, lagOf(1_000, 200))).singleElement().asString()
                .contains("orders alone / orders: 35 of 200 requests went out more than 50 ms after their time");
    }

    @Test
    void aLoadAverageAboveTheSamplesCpusIsReported() {
        Phase flooded = phase("flooded", 100, 100, 0);
        flooded.serverLoad = new double[] {11.0, 2};

        assertThat(LoadCommand.busyMachineSigns(List.of(flooded), lagOf(1_000, 200))).singleElement().asString()
                .contains("flooded: the sample's machine had a load average of 11.0 on 2 CPUs");
    }

    @Test
    void ordersStarvedUnderTheFloodDepartFromTheExpectedShape() {
        List<Phase> phases = List.of(phase("orders alone", 200, 200, 0), phase("flooded", 200, 41, 0));

        assertThat(LoadCommand.departuresFromExpected(phases, 8))
                .containsExactly("flooded: 159 of 200 orders were not committed");
    }

    @Test
    void aRunOfTheExpectedShapeHasNoDepartures() {
        List<Phase> phases = List.of(phase("orders alone", 200, 200, 0), phase("flooded", 200, 200, 0));

        assertThat(LoadCommand.departuresFromExpected(phases, 8)).isEmpty();
    }

    /** A phase whose orders were offered, committed in 10 ms each, and sent late as given. */
    private static Phase phase(String name, int offered, int committed, int late) {
        Phase phase = new Phase(name);
        Stats orders = phase.stats("orders");
        orders.offered.add(offered);
        orders.offeredLate.add(late);
        for (int i = 0; i < committed; i++) {
            orders.succeeded.add(10_000L);
        }
        return phase;
    }

    private static SchedulingLag lagOf(long micros, int times) {
        SchedulingLag lag = new SchedulingLag();
        for (int i = 0; i < times; i++) {
            lag.record(micros);
        }
        return lag;
    }
}
