package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.jdbc.ungated.WorkRules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.ScheduledMethodRunnable;

/**
 * {@code db.bulkhead.work}, checked: the default workload and the rules that classify units of work, each naming a
 * configured workload and exactly one source. Every mistake stops start-up naming the property and the value.
 *
 * @param defaultWorkload the workload of work no rule names; {@code null} when admission where connections are taken
 *                        is off
 * @param stackRules      the rules read where a connection is taken (scheduled, listener, quartz, batch, caller,
 *                        executor), in their order
 * @param httpRules       the HTTP rules, in their order, each with its index among all rules
 */
public record WorkClassification(@Nullable String defaultWorkload, WorkRules stackRules, List<HttpRule> httpRules) {

    static final String PREFIX = BulkheadProperties.PREFIX + ".work.";

    /**
     * The frames that call the method of a run, by kind: the method is the application's frame nearest them. Class
     * names, so that none of these frameworks need be on the class path.
     */
    private static final Map<WorkRules.Kind, List<String>> RUNNERS = Map.of(
            WorkRules.Kind.SCHEDULED, List.of(ScheduledMethodRunnable.class.getName()),
            // Annotated listeners (Kafka's, Rabbit's, JMS's) are invoked through Spring Messaging's handler method;
            // a MessageListener bean's onMessage by its container.
            WorkRules.Kind.LISTENER, List.of("org.springframework.messaging.handler.invocation.InvocableHandlerMethod",
                    "org.springframework.jms.listener.AbstractMessageListenerContainer",
                    "org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer",
                    "org.springframework.kafka.listener.KafkaMessageListenerContainer$ListenerConsumer"),
            WorkRules.Kind.QUARTZ, List.of("org.quartz.core.JobRunShell"));

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
            Map<String, @Nullable String> sources = new LinkedHashMap<>();
            sources.put("http", rule.getHttp());
            sources.put("scheduled", rule.getScheduled());
            sources.put("listener", rule.getListener());
            sources.put("quartz", rule.getQuartz());
            sources.put("batch", rule.getBatch());
            sources.put("caller", rule.getCaller());
            sources.put("executor", rule.getExecutor());
            List<String> given = sources.keySet().stream().filter(source -> sources.get(source) != null).toList();
            if (given.size() != 1) {
                throw BulkheadConfigurationException.invalidProperty(property, given.size() + " sources",
                        "exactly one of " + String.join(", ", sources.keySet()) + " beside workload");
            }
            String source = given.get(0);
            String value = Objects.requireNonNull(sources.get(source));
            if (source.equals("http")) {
                httpRules.add(new HttpRule(property + ".http", value, workload));
            } else {
                WorkRules.Kind kind = WorkRules.Kind.valueOf(source.toUpperCase(Locale.ROOT));
                stackRules.add(ResolvedSettings.requireValid(property + "." + source, value,
                        name -> new WorkRules.Rule(kind, name, workload)));
            }
        }
        return new WorkClassification(defaultWorkload, new WorkRules(stackRules, RUNNERS,
                BatchSteps.ofClassPath(WorkClassification.class.getClassLoader())), List.copyOf(httpRules));
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
