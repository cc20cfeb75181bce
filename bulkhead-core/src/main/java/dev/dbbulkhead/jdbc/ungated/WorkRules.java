package dev.dbbulkhead.jdbc.ungated;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The rules that name the workload of a connection taken outside every admitted operation from where on the stack it
 * is taken: by a class or package of the caller ({@link Kind#CALLER}), or by a scheduled method's
 * ({@link Kind#SCHEDULED}). The first rule in their order that matches decides; a borrow no rule matches is the default
 * workload's. Rules a unit of work was classified by where it began (an HTTP request's) are not here: they are bound to
 * its thread ({@link dev.dbbulkhead.gate.WorkloadBinding}) and come first.
 */
public final class WorkRules {

    /** What a rule reads on the stack. */
    public enum Kind {
        /** A frame of the named class or package anywhere on the stack. */
        CALLER,
        /** The method a scheduler runs, of the named class or package, or any with {@link #ANY}. */
        SCHEDULED,
        /**
         * Work on a thread of the named executor (a bean name): matched by the prefix its threads' names start with,
         * known once the executor is ({@link #executorsKnown}); until then the rule matches nothing.
         */
        EXECUTOR
    }

    /** The name of a {@link Kind#SCHEDULED} rule that matches every scheduled method. */
    public static final String ANY = "*";

    /** Frameworks' frames between a scheduler's runner and the method it runs: never the scheduled method. */
    private static final List<String> BETWEEN = List.of("org.springframework.aop", "org.springframework.cglib",
            "org.springframework.scheduling", "io.micrometer");

    /**
     * One rule.
     *
     * @param kind     what it reads
     * @param name     a package or class name; for {@link Kind#SCHEDULED} also {@link #ANY}
     * @param workload the workload of the borrows it matches
     */
    public record Rule(Kind kind, String name, String workload) {

        /** @throws IllegalArgumentException naming the value when {@code name} is no package or class name */
        public Rule {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(workload, "workload");
            if (kind == Kind.EXECUTOR) {
                if (name == null || name.isBlank()) {
                    throw new IllegalArgumentException("'" + name + "' is no executor's name: name a TaskExecutor or"
                            + " TaskScheduler bean");
                }
            } else if (!(kind == Kind.SCHEDULED && ANY.equals(name))) {
                CallerRules.requirePackageOrClassName(name);
            }
        }

        @Override
        public String toString() {
            return kind.name().toLowerCase(java.util.Locale.ROOT) + " " + name + " -> " + workload;
        }
    }

    private final List<Rule> rules;
    private final Set<String> schedulerRunners;
    /** The prefix of each executor's thread names, by executor name; empty until they are known. */
    private volatile Map<String, String> threadPrefixes = Map.of();

    /**
     * @param rules            in the order they are tried
     * @param schedulerRunners the classes whose frame runs a scheduled method (Spring's {@code ScheduledMethodRunnable})
     */
    public WorkRules(Collection<Rule> rules, Collection<String> schedulerRunners) {
        this.rules = List.copyOf(rules);
        this.schedulerRunners = Set.copyOf(schedulerRunners);
    }

    /** No rule: every borrow outside an admitted operation is the default workload's. */
    public static WorkRules none() {
        return new WorkRules(List.of(), List.of());
    }

    /**
     * Tells the prefix each executor's thread names start with, by executor name: from then on the
     * {@link Kind#EXECUTOR} rules match the work on those threads, and a report names the executor a thread is of.
     * Called once the executors exist; executors no rule names may be told too, for the reports.
     *
     * @throws IllegalArgumentException for a blank prefix, which every thread's name would start with
     */
    public void executorsKnown(Map<String, String> prefixes) {
        prefixes.forEach((executor, prefix) -> {
            if (prefix == null || prefix.isBlank()) {
                throw new IllegalArgumentException("the threads of executor '" + executor + "' have no name prefix");
            }
        });
        threadPrefixes = Map.copyOf(prefixes);
    }

    /**
     * The executor whose threads' names {@code threadName} starts with, the longest prefix first; {@code null} when
     * none is known: what a report of work only the default caught names beside the thread.
     */
    public @Nullable String executorOf(String threadName) {
        String found = null;
        int longest = -1;
        for (Map.Entry<String, String> known : threadPrefixes.entrySet()) {
            String prefix = known.getValue();
            if (threadName.startsWith(prefix) && prefix.length() > longest) {
                found = known.getKey();
                longest = prefix.length();
            }
        }
        return found;
    }

    /** The names of the executors the rules name, in their order. */
    public List<String> executors() {
        return rules.stream().filter(rule -> rule.kind() == Kind.EXECUTOR).map(Rule::name).distinct().toList();
    }

    /** The rules, in their order. */
    public List<Rule> rules() {
        return rules;
    }

    /**
     * Whether a borrow's stack need not be read: no rule reads it, and no scheduler's runner is known whose jobs would
     * be named in a report of their refusals.
     */
    public boolean isEmpty() {
        return rules.isEmpty() && schedulerRunners.isEmpty();
    }

    /**
     * What a borrow's stack showed.
     *
     * @param rule the index of the first rule that matched, or -1 when none did
     * @param job  the scheduled method the borrow runs in ({@code class.method}), or {@code null} when the borrow is
     *             not a scheduler's: the name its refusals are reported under
     */
    record Classified(int rule, @Nullable String job) {
    }

    /**
     * Reads a borrow's stack, nearest frame first, at most {@link CallerRules#MAX_FRAMES} of it.
     *
     * @return the first rule that matches and the scheduled method the borrow runs in
     */
    Classified classify(Stream<StackWalker.StackFrame> frames) {
        List<String> callers = new ArrayList<>();
        String scheduled = null;
        String nearestToRunner = null;
        for (Iterator<StackWalker.StackFrame> it = frames.limit(CallerRules.MAX_FRAMES).iterator(); it.hasNext(); ) {
            StackWalker.StackFrame frame = it.next();
            String className = frame.getClassName();
            if (schedulerRunners.contains(className)) {
                scheduled = nearestToRunner;
                break;
            }
            // A proxy's frame stands for its user class: a @Transactional method's transaction takes its connection
            // before the method's own code runs, so the proxy's frame is the only one of its class on the stack.
            String userClass = CallerRules.isGenerated(className) ? CallerRules.userClassOf(className) : className;
            if (userClass == null || CallerRules.firstMatch(CallerRules.RUNTIME, userClass) != null) {
                continue;
            }
            callers.add(userClass);
            if (CallerRules.firstMatch(BETWEEN, userClass) == null) {
                nearestToRunner = userClass + "." + frame.getMethodName();
            }
        }
        String scheduledClass = scheduled == null ? null : scheduled.substring(0, scheduled.lastIndexOf('.'));
        return new Classified(firstMatching(callers, scheduledClass, Thread.currentThread().getName()), scheduled);
    }

    /**
     * The index of the first rule that the stack's classes, its scheduled method and the thread's name match; -1 when
     * none does.
     */
    int firstMatching(List<String> callers, @Nullable String scheduled, String threadName) {
        Map<String, String> prefixes = threadPrefixes;
        for (int i = 0; i < rules.size(); i++) {
            Rule rule = rules.get(i);
            List<String> name = List.of(rule.name());
            boolean matches = switch (rule.kind()) {
                case CALLER -> callers.stream().anyMatch(caller -> CallerRules.firstMatch(name, caller) != null);
                case SCHEDULED -> scheduled != null
                        && (ANY.equals(rule.name()) || CallerRules.firstMatch(name, scheduled) != null);
                case EXECUTOR -> {
                    String prefix = prefixes.get(rule.name());
                    yield prefix != null && threadName.startsWith(prefix);
                }
            };
            if (matches) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return "WorkRules" + rules;
    }
}
