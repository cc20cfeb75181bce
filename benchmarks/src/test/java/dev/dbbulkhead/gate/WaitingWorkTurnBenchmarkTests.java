package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WaitingWorkTurnBenchmarkTests {

    @ParameterizedTest
    @ValueSource(ints = {1, 1000})
    void eachTurnGrantsTheOperationThatJustJoinedItsFlowsInTurn(int flows) {
        WaitingWorkTurnBenchmark benchmark = new WaitingWorkTurnBenchmark();
        benchmark.flows = flows;
        benchmark.setUp();

        for (int turn = 0; turn < 2 * flows + 1; turn++) {
            Object granted = benchmark.joinAndBeGranted();

            assertThat(granted).isInstanceOf(WaitingWork.Waiter.class);
            WaitingWork.Ticket ticket = (WaitingWork.Ticket) ((WaitingWork.Waiter<?>) granted).owner;
            assertThat(ticket.key()).isEqualTo("tenant-" + (turn % flows));
        }
    }
}
