package dev.dbbulkhead.benchmarks.pathcost;

import java.util.ArrayList;
import java.util.List;

/** One planned fork: a path, from one build, in the {@code fork}-th round of forks. */
record ForkRun(UserPath path, Variant variant, int fork) {

    /**
     * The forks of a run, in the order they run. Round 1 runs the paths in the order given, round 2 in reverse,
     * and so on, so that a drift of the machine (other work starting, the disk cache filling) falls on every path
     * alike instead of on the last ones. With {@code before}, each starter path's two builds run next to each other,
     * so that they see the same machine.
     */
    static List<ForkRun> plan(List<UserPath> paths, int forks, boolean before) {
        List<ForkRun> plan = new ArrayList<>();
        for (int fork = 1; fork <= forks; fork++) {
            List<ForkRun> round = new ArrayList<>();
            for (UserPath path : paths) {
                if (before && path.starter()) {
                    round.add(new ForkRun(path, Variant.BEFORE, fork));
                }
                round.add(new ForkRun(path, Variant.AFTER, fork));
            }
            plan.addAll(fork % 2 == 1 ? round : round.reversed());
        }
        return plan;
    }

    /** How the fork's output is marked on the run's standard error. */
    String tag() {
        return path + (variant == Variant.BEFORE ? " before" : "") + " fork " + fork;
    }
}
