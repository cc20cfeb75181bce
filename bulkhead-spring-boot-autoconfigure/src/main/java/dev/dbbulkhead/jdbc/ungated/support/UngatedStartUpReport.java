package dev.dbbulkhead.jdbc.ungated.support;

import dev.dbbulkhead.jdbc.ungated.UngatedConnectionDetector;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionReport;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.util.Map;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;

/**
 * When the application is ready, sums up per watched pool what start-up borrowed outside the gates — a warning when
 * anything went unrecognised, else a line of information — and names each workload whose pool is not watched.
 */
public final class UngatedStartUpReport implements ApplicationListener<ApplicationReadyEvent> {

    private static final Log logger = LogFactory.getLog(UngatedStartUpReport.class);

    private final WatchedPools pools;
    private final ObjectProvider<BulkheadRegistry> registry;

    /**
     * @param pools    the pools watched
     * @param registry the workloads, whose pools should all be watched
     */
    public UngatedStartUpReport(WatchedPools pools, ObjectProvider<BulkheadRegistry> registry) {
        this.pools = pools;
        this.registry = registry;
    }

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        if (!pools.watching()) {
            return;
        }
        WatchedPools.AdmissionSettings admission = pools.admissionSettings();
        for (UngatedConnectionDetector detector : pools.detectors()) {
            UngatedConnectionReport report = detector.report();
            if (admission != null && report.connections() > 0) {
                logger.warn(describeCaughtByDefault(report, admission.defaultWorkload()));
            } else if (report.connections() > 0) {
                logger.warn(describe(report));
            } else if (logger.isInfoEnabled()) {
                logger.info(describe(report));
            }
        }
        registry.ifAvailable(this::unwatchedWorkloads);
    }

    /** What start-up borrowed on one pool outside the gates. */
    static String describe(UngatedConnectionReport report) {
        String recognised = report.recognised().isEmpty() ? "none"
                : report.recognised().entrySet().stream().sorted(Map.Entry.comparingByKey())
                        .map(rule -> rule.getKey() + " × " + rule.getValue()).collect(Collectors.joining(", "));
        if (report.connections() == 0) {
            return "Start-up borrowed no connection of pool '" + report.pool() + "' outside the gates but recognised"
                    + " infrastructure (" + recognised + ").";
        }
        String sites = report.callSites().stream().map(count -> count.site() + (count.site().application() ? ""
                : " (a guess)") + " × " + count.connections()).collect(Collectors.joining(", "));
        String others = report.otherCallSites() == 0 ? "" : ", other call sites × " + report.otherCallSites();
        boolean guessed = report.callSites().stream().anyMatch(count -> !count.site().application());
        return "Start-up borrowed " + report.connections() + " connection(s) of pool '" + report.pool()
                + "' outside every gate, from " + sites + others + ". Each call site was logged when first seen; gate"
                + " it with @DbBulkhead or a BulkheadTemplate, or, if it is the application's code meant to run"
                + " outside the gates, list it in db.bulkhead.ungated.allowed-callers."
                + (guessed ? " A call site marked as a guess is no frame of the application's packages: list them in"
                        + " db.bulkhead.ungated.application-packages, and never allow a library's frame." : "")
                + " Recognised infrastructure: " + recognised + ".";
    }

    /** What start-up borrowed on one pool that no rule classified, so that the default workload admitted it. */
    static String describeCaughtByDefault(UngatedConnectionReport report, String defaultWorkload) {
        String sites = report.callSites().stream().map(count -> count.site() + (count.site().application() ? ""
                : " (a guess)") + " × " + count.connections()).collect(Collectors.joining(", "));
        String others = report.otherCallSites() == 0 ? "" : ", other call sites × " + report.otherCallSites();
        return "Start-up took " + report.connections() + " connection(s) of pool '" + report.pool() + "' that no rule"
                + " classified — outside the gates while the beans were made, as the gates open only then; after"
                + " that admitted by the default workload '" + defaultWorkload + "' — from " + sites + others
                + ". Each call site was logged when first seen; if it borrows again once the application runs, name"
                + " its workload with a rule (db.bulkhead.work.rules) or @DbBulkhead, or size the default workload"
                + " for it.";
    }

    private void unwatchedWorkloads(BulkheadRegistry bulkheads) {
        for (String workload : bulkheads.names()) {
            BulkheadTemplate template = bulkheads.template(workload);
            DataSource dataSource = template.dataSource().orElse(null);
            if (dataSource != null && !pools.isWatched(dataSource)) {
                logger.info("Workload '" + workload + "' admits to a DataSource that is not watched for ungated work:"
                        + " only the primary DataSource and those named by data-source are. Set"
                        + " db.bulkhead.workloads." + workload + ".data-source to its bean name to watch it too.");
            }
        }
    }
}
