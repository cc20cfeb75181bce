package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.jdbc.ungated.WorkRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.ScheduledMethodRunnable;

/**
 * {@code db.bulkhead.work}, checked: the default workload and the rules that classify units of work, each naming a
 * configured workload and exactly one source. Every mistake stops start-up naming the property and the value.
 *
 * @param defaultWorkload the workload of work no rule names; {@code null} when admission where connections are taken
 *                        is off
 * @param stackRules      the rules read on a borrow's stack (caller, scheduled), in their order
 * @param httpRules       the HTTP rules, in their order, each with its index among all rules
 */
public record WorkClassification(@Nullable String defaultWorkload, WorkRules stackRules, List<HttpRule> httpRules) {

    static final String PREFIX = BulkheadProperties.PREFIX + ".work.";

    /**
     * An HTTP rule as written.
     *
     * @param property its property, {@code db.bulkhead.work.rules[i].http}
     * @param http     the method and path pattern, or the pattern alone
     * @param workload its workload
     */
    public record HttpRule(String property, String http, String workload) {
    }

    /**
     * Reads and checks {@code db.bulkhead.work}.
     *
     * @throws BulkheadConfigurationException naming the first property whose value is wrong
     */
    public static WorkClassification of(BulkheadProperties properties) {
        BulkheadProperties.Work work = properties.getWork();
        Set<String> workloads = properties.getWorkloads().keySet();
        String defaultWorkload = work.getDefaultWorkload();
        List<BulkheadProperties.WorkRule> rules = work.getRules();
        if (defaultWorkload == null) {
            if (!rules.isEmpty()) {
                throw BulkheadConfigurationException.invalidProperty(PREFIX + "default-workload", null,
                        "the workload of work no rule names, one of " + workloads + ": the rules of "
                                + PREFIX + "rules classify only where connections are admitted, which it turns on");
            }
            return new WorkClassification(null, WorkRules.none(), List.of());
        }
        requireWorkload(PREFIX + "default-workload", defaultWorkload, workloads);
        if (properties.getUngated().getMode() == BulkheadProperties.UngatedMode.OFF) {
            throw BulkheadConfigurationException.invalidProperty(BulkheadProperties.PREFIX + ".ungated.mode", "off",
                    "warn or fail while " + PREFIX + "default-workload is set: off leaves the pools unwatched, so"
                            + " no connection could be admitted where it is taken");
        }
        List<WorkRules.Rule> stackRules = new ArrayList<>();
        List<HttpRule> httpRules = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            String property = PREFIX + "rules[" + i + "]";
            BulkheadProperties.WorkRule rule = rules.get(i);
            String workload = requireWorkload(property + ".workload", rule.getWorkload(), workloads);
            int sources = (rule.getHttp() != null ? 1 : 0) + (rule.getScheduled() != null ? 1 : 0)
                    + (rule.getCaller() != null ? 1 : 0) + (rule.getExecutor() != null ? 1 : 0);
            if (sources != 1) {
                throw BulkheadConfigurationException.invalidProperty(property, sources + " sources",
                        "exactly one of http, scheduled, caller and executor beside workload");
            }
            String http = rule.getHttp();
            String scheduled = rule.getScheduled();
            String caller = rule.getCaller();
            String executor = rule.getExecutor();
            if (http != null) {
                httpRules.add(new HttpRule(property + ".http", http, workload));
            } else if (scheduled != null) {
                stackRules.add(ResolvedSettings.requireValid(property + ".scheduled", scheduled,
                        name -> new WorkRules.Rule(WorkRules.Kind.SCHEDULED, name, workload)));
            } else if (caller != null) {
                stackRules.add(ResolvedSettings.requireValid(property + ".caller", caller,
                        name -> new WorkRules.Rule(WorkRules.Kind.CALLER, name, workload)));
            } else if (executor != null) {
                stackRules.add(ResolvedSettings.requireValid(property + ".executor", executor,
                        name -> new WorkRules.Rule(WorkRules.Kind.EXECUTOR, name, workload)));
            }
        }
        // The frame that calls an @Scheduled method, reflectively: the method is the application's frame nearest it.
        List<String> runners = List.of(ScheduledMethodRunnable.class.getName());
        return new WorkClassification(defaultWorkload, new WorkRules(stackRules, runners), List.copyOf(httpRules));
    }

    private static String requireWorkload(String property, @Nullable String name, Set<String> workloads) {
        if (name == null || !workloads.contains(name)) {
            throw BulkheadConfigurationException.invalidProperty(property, name,
                    "the name of a workload configured under " + BulkheadProperties.PREFIX + ".workloads, one of "
                            + workloads);
        }
        return name;
    }
}
