package dev.dbbulkhead.jdbc.ungated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.util.List;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * The rules read on a borrow's stack: the first in their order that matches decides, a scheduled rule matches the
 * method a scheduler's runner called (reflectively, as Spring's does), a caller rule any frame of its package or class.
 */
class WorkRulesTests {

    private static final WorkRules.Rule REPORTS = new WorkRules.Rule(WorkRules.Kind.CALLER,
            WorkRulesTests.class.getName(), "reports");
    private static final WorkRules.Rule JOBS = new WorkRules.Rule(WorkRules.Kind.SCHEDULED, WorkRules.ANY, "jobs");
    private static final WorkRules.Rule NIGHTLY = new WorkRules.Rule(WorkRules.Kind.SCHEDULED,
            NightlyJob.class.getName(), "nightly");

    private static WorkRules rules(WorkRules.Rule... rules) {
        return new WorkRules(List.of(rules), List.of(Runner.class.getName()));
    }

    /** Stands in for a scheduler's runner: calls the scheduled method reflectively. */
    static final class Runner {

        static int run(Object job, String methodName) throws ReflectiveOperationException {
            Method method = job.getClass().getDeclaredMethod(methodName);
            method.setAccessible(true);
            return (int) method.invoke(job);
        }
    }

    /** A scheduled job whose borrow is classified by {@code rules}. */
    static final class NightlyJob {

        private final IntSupplier borrow;

        NightlyJob(IntSupplier borrow) {
            this.borrow = borrow;
        }

        int archive() {
            return borrow.getAsInt();
        }
    }

    @Test
    void aScheduledRuleMatchesTheMethodTheSchedulersRunnerCalls() throws Exception {
        WorkRules rules = rules(NIGHTLY, JOBS);
        assertThat(Runner.run(new NightlyJob(() -> rules.classify(CallerRules.stack()).rule()), "archive"))
                .as("the nightly job's own rule, first in order").isZero();
        WorkRules anyFirst = rules(JOBS, NIGHTLY);
        assertThat(Runner.run(new NightlyJob(() -> anyFirst.classify(CallerRules.stack()).rule()), "archive")).isZero();
    }

    @Test
    void theScheduledMethodIsNamedForTheReportsOfItsRefusals() throws Exception {
        WorkRules rules = rules(JOBS);
        List<String> jobs = new java.util.ArrayList<>();
        Runner.run(new NightlyJob(() -> {
            WorkRules.Classified classified = rules.classify(CallerRules.stack());
            jobs.add(classified.job());
            return classified.rule();
        }), "archive");
        assertThat(jobs).containsExactly("scheduled job " + NightlyJob.class.getName() + ".archive");
    }

    @Test
    void aRunnersKindDecidesWhichRulesItsRunsMatchAndHowTheyAreNamed() throws Exception {
        WorkRules.Rule listeners = new WorkRules.Rule(WorkRules.Kind.LISTENER, WorkRules.ANY, "events");
        WorkRules rules = new WorkRules(List.of(JOBS, listeners),
                java.util.Map.of(WorkRules.Kind.LISTENER, List.of(Runner.class.getName())), WorkRules.Steps.NONE);
        List<WorkRules.Classified> seen = new java.util.ArrayList<>();
        Runner.run(new NightlyJob(() -> {
            seen.add(rules.classify(CallerRules.stack()));
            return 0;
        }), "archive");
        assertThat(seen).containsExactly(new WorkRules.Classified(1,
                "message listener " + NightlyJob.class.getName() + ".archive"));
        assertThatThrownBy(() -> new WorkRules(List.of(), java.util.Map.of(WorkRules.Kind.BATCH, List.of("x")),
                WorkRules.Steps.NONE)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aBatchRuleMatchesTheStepsOfItsJobOrOneStepButNoJobWhoseNameMerelyStartsLikeIt() {
        for (String name : List.of("importJob", "importJob.load", WorkRules.ANY)) {
            WorkRules rules = rules(new WorkRules.Rule(WorkRules.Kind.BATCH, name, "jobs"));
            assertThat(rules.firstMatching(List.of(), null, "importJob.load", "main")).as(name).isZero();
            assertThat(rules.firstMatching(List.of(), null, null, "main")).as("no step").isEqualTo(-1);
        }
        for (String name : List.of("import", "importJob.loa", "importJob.load.more")) {
            assertThat(rules(new WorkRules.Rule(WorkRules.Kind.BATCH, name, "jobs"))
                    .firstMatching(List.of(), null, "importJob.load", "main")).as(name).isEqualTo(-1);
        }
        assertThatThrownBy(() -> new WorkRules.Rule(WorkRules.Kind.BATCH, " ", "jobs"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no Batch job or step");
    }

    @Test
    void withoutASchedulersRunnerOnTheStackNoScheduledRuleMatches() {
        WorkRules rules = rules(JOBS);
        assertThat(new NightlyJob(() -> rules.classify(CallerRules.stack()).rule()).archive()).isEqualTo(-1);
    }

    @Test
    void theFirstRuleInTheirOrderDecidesWhenSeveralMatch() throws Exception {
        WorkRules callerFirst = rules(REPORTS, JOBS);
        assertThat(Runner.run(new NightlyJob(() -> callerFirst.classify(CallerRules.stack()).rule()), "archive")).isZero();
        WorkRules scheduledFirst = rules(JOBS, REPORTS);
        assertThat(Runner.run(new NightlyJob(() -> scheduledFirst.classify(CallerRules.stack()).rule()), "archive")).isZero();
        assertThat(scheduledFirst.firstMatching(List.of(WorkRulesTests.class.getName()), null, null, "main"))
                .as("not scheduled: the caller rule").isOne();
    }

    @Test
    void aCallerRuleMatchesItsPackageAndItsNestedClassesButNoLongerName() {
        WorkRules rules = rules(new WorkRules.Rule(WorkRules.Kind.CALLER, "com.example.reports", "reports"));
        assertThat(rules.firstMatching(List.of("com.example.reports.Monthly$Inner"), null, null, "main")).isZero();
        assertThat(rules.firstMatching(List.of("com.example.reports.monthly.Sums"), null, null, "main")).isZero();
        assertThat(rules.firstMatching(List.of("com.example.reportsarchive.Old"), null, null, "main")).isEqualTo(-1);
    }

    @Test
    void anExecutorRuleMatchesTheThreadsOfItsExecutorOnceTheirPrefixIsKnown() {
        WorkRules rules = rules(new WorkRules.Rule(WorkRules.Kind.EXECUTOR, "mailExecutor", "mail"));
        assertThat(rules.executors()).containsExactly("mailExecutor");
        assertThat(rules.firstMatching(List.of(), null, null, "mail-3")).as("not known yet").isEqualTo(-1);
        rules.executorsKnown(java.util.Map.of("mailExecutor", "mail-"));
        assertThat(rules.firstMatching(List.of(), null, null, "mail-3")).isZero();
        assertThat(rules.firstMatching(List.of(), null, null, "task-3")).isEqualTo(-1);
        assertThatThrownBy(() -> rules.executorsKnown(java.util.Map.of("mailExecutor", "")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'mailExecutor'");
    }

    @Test
    void aNameThatIsNoPackageOrClassIsRefusedNamingTheValue() {
        assertThatThrownBy(() -> new WorkRules.Rule(WorkRules.Kind.CALLER, "com.example.*", "reports"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'com.example.*'");
        assertThatThrownBy(() -> new WorkRules.Rule(WorkRules.Kind.CALLER, WorkRules.ANY, "reports"))
                .as("* is a scheduled rule's only").isInstanceOf(IllegalArgumentException.class);
    }
}
