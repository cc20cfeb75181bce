package dev.dbbulkhead.autoconfigure;

import static dev.dbbulkhead.annotation.DbBulkheadDeclarationException.describe;

import dev.dbbulkhead.WrittenDurations;
import dev.dbbulkhead.budget.ConnectionBudgetReport;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The bulkhead configuration cannot work: a property value out of range, or a {@code @DbBulkhead} declaration
 * that would admit too late or through no gate. Thrown at start-up; {@link BulkheadFailureAnalyzer} turns it
 * into a report of what is wrong and how to fix it.
 */
public final class BulkheadConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String action;

    private BulkheadConfigurationException(String description, String action) {
        super(description);
        this.action = action;
    }

    /** What to do about it. */
    public String action() {
        return action;
    }

    /**
     * The start-up failure of a property value out of its range: names the property, the value and what is allowed.
     */
    public static BulkheadConfigurationException invalidProperty(String property, @Nullable Object value,
                                                                 String allowed) {
        return new BulkheadConfigurationException(
                "Invalid value '" + WrittenDurations.of(value) + "' for property '" + property + "': "
                        + WrittenDurations.in(allowed),
                "Set '" + property + "' to a value in the allowed range, or remove it to inherit the default.");
    }

    /** The start-up failure of several property values out of their ranges, each named with its value and range. */
    static BulkheadConfigurationException invalidProperties(List<String> mistakes) {
        StringBuilder description = new StringBuilder("db-bulkhead property values out of their ranges ("
                + mistakes.size() + "):");
        for (String mistake : mistakes) {
            description.append("\n  - ").append(mistake);
        }
        return new BulkheadConfigurationException(description.toString(),
                "Set each property above to a value in its allowed range, or remove it to inherit the default.");
    }

    /**
     * The start-up failure of properties that would not take effect as written: unknown keys, workload names the
     * binder would rewrite, durations without a unit, values that do not convert. Each problem names its property.
     */
    static BulkheadConfigurationException propertiesNotAsWritten(List<String> problems) {
        StringBuilder description = new StringBuilder("db-bulkhead properties that would not take effect as written:");
        for (String problem : problems) {
            description.append("\n  - ").append(problem);
        }
        return new BulkheadConfigurationException(description.toString(),
                "Correct each property above. Every key under '" + BulkheadProperties.PREFIX + "' must be one"
                        + " db-bulkhead knows (see its configuration reference), so that a misspelt key cannot leave"
                        + " a setting at another value; durations take a unit (500ms, 5s, 2m).");
    }

    static BulkheadConfigurationException unknownWorkload(String beanName, Class<?> beanClass, Method method,
                                                          String workload, Collection<String> configured) {
        if (!BulkheadPropertiesCheck.WORKLOAD_NAME.matcher(workload).matches()) {
            // Configuring the name as written would fail start-up too: the binder rewrites such names.
            String lowerCase = workload.toLowerCase(Locale.ROOT);
            String action = !BulkheadPropertiesCheck.WORKLOAD_NAME.matcher(lowerCase).matches()
                    ? "Name a workload of " + BulkheadPropertiesCheck.WORKLOAD_NAME_RULE + " in the annotation."
                    : configured.contains(lowerCase) ? "Name '" + lowerCase + "' in the annotation (it is configured)."
                    : "Name '" + lowerCase + "' in the annotation, and configure it under '"
                            + BulkheadProperties.PREFIX + ".workloads." + lowerCase + "'.";
            return new BulkheadConfigurationException(
                    describe(beanName, beanClass, method) + " is annotated @DbBulkhead(\"" + workload + "\"), but '"
                            + workload + "' cannot be a workload's name (" + BulkheadPropertiesCheck.WORKLOAD_NAME_RULE
                            + "). Configured workloads: " + configured,
                    action);
        }
        return new BulkheadConfigurationException(
                describe(beanName, beanClass, method) + " is annotated @DbBulkhead(\"" + workload
                        + "\"), but no workload '" + workload + "' is configured. Configured workloads: " + configured,
                "Configure the workload under '" + BulkheadProperties.PREFIX + ".workloads." + workload
                        + "' (for example '" + BulkheadProperties.PREFIX + ".workloads." + workload
                        + ".max-concurrent'), or name one of " + configured + " in the annotation.");
    }

    static BulkheadConfigurationException workloadsAddedAfterAotProcessing(Collection<String> added,
                                                                           Collection<String> processed) {
        String first = BulkheadProperties.PREFIX + ".workloads." + added.iterator().next();
        return new BulkheadConfigurationException(
                "Workloads " + added + " are configured, but this application was processed ahead of time"
                        + " (spring.aot.enabled=true) with only the workloads " + processed + ": in AOT mode the"
                        + " workloads are fixed at build time, so " + added + " would have no gate.",
                "Configure " + added + " (for example '" + first + ".max-concurrent') in the configuration the"
                        + " application is processed with, and process it again; or run it without"
                        + " spring.aot.enabled to add workloads at deploy time. The limits of processed workloads"
                        + " may still be set at deploy time.");
    }

    static BulkheadConfigurationException noTransactionManager(String workload, Collection<String> transactionManagers) {
        return new BulkheadConfigurationException(
                "Workload '" + workload + "' has no transaction manager: it names neither a transaction manager nor a"
                        + " data source, and the application has no single primary PlatformTransactionManager"
                        + " (PlatformTransactionManager beans: " + transactionManagers + "). With several DataSources"
                        + " and none of them primary, Spring Boot defines none; @DbBulkhead methods would run"
                        + " without a transaction.",
                "Set '" + WorkloadKeys.TRANSACTION_MANAGER.under(workload) + "' to the bean name of its transaction"
                        + " manager (or '" + WorkloadKeys.DATA_SOURCE.under(workload) + "' to its DataSource), or mark"
                        + " one PlatformTransactionManager @Primary.");
    }

    static BulkheadConfigurationException dataSourceOfJpa(String workload, String property, String dataSource,
                                                          Collection<String> jpaTransactionManagers) {
        String managers = jpaTransactionManagers.isEmpty() ? "no JpaTransactionManager manages it"
                : "several JpaTransactionManagers manage it: " + jpaTransactionManagers;
        return new BulkheadConfigurationException(
                "'" + property + "' names DataSource '" + dataSource + "', which JPA uses, and " + managers + ". A"
                        + " JDBC transaction manager of its own would not see the EntityManager's work: Spring Data"
                        + " JPA repositories would run outside the admitted transaction.",
                "Set '" + WorkloadKeys.TRANSACTION_MANAGER.under(workload) + "' to the bean name of the"
                        + " JpaTransactionManager of DataSource '" + dataSource + "'"
                        + (jpaTransactionManagers.isEmpty() ? " (define one if there is none)." : "."));
    }

    static BulkheadConfigurationException ungatedEntry(String beanName, Class<?> beanClass, Method method,
                                                       String workload, Collection<String> dataSources,
                                                       Collection<String> transactionManagers) {
        return new BulkheadConfigurationException(
                describe(beanName, beanClass, method) + " is annotated @DbBulkhead(\"" + workload + "\"), but"
                        + " db-bulkhead could not set up its gates: they need a DataSource and a"
                        + " PlatformTransactionManager bean, and the application has DataSources " + dataSources
                        + " and transaction managers " + transactionManagers + " (with several DataSources and none"
                        + " of them primary, Spring Boot defines no transaction manager). The method would run"
                        + " unadmitted and without a transaction.",
                "Define a PlatformTransactionManager (with several DataSources, mark one DataSource or one"
                        + " transaction manager @Primary, or name one per workload with '"
                        + WorkloadKeys.TRANSACTION_MANAGER.under(workload) + "'), or set '" + BulkheadProperties.PREFIX
                        + ".enabled=false' to run @DbBulkhead methods in a transaction without a gate.");
    }

    static BulkheadConfigurationException postgresOnlyLimits(List<PostgresOnlyTimeoutsCheck.Refusal> refusals) {
        StringBuilder description = new StringBuilder("statement-timeout, lock-timeout and deadline are applied with"
                + " PostgreSQL's SET LOCAL at the start of every transaction, and these workloads would send them to"
                + " another database, where every transaction would fail:");
        for (PostgresOnlyTimeoutsCheck.Refusal refusal : refusals) {
            description.append("\n  - workload '").append(refusal.workload()).append("' on ").append(refusal.product())
                    .append(": ").append(String.join(", ", refusal.properties()));
        }
        return new BulkheadConfigurationException(description.toString(),
                "Remove the properties listed above where the database is not PostgreSQL (for example in the profile"
                        + " that uses it), or point the workload at a PostgreSQL data source.");
    }

    static BulkheadConfigurationException connectionBudget(ConnectionBudgetReport report) {
        return new BulkheadConfigurationException(report.describe(),
                "Fix each finding above, or set '" + BulkheadProperties.PREFIX + ".budget.mode=warn' to start anyway"
                        + " and log them as warnings.");
    }

}
