package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.budget.ServerConnectionSlots;
import dev.dbbulkhead.fleet.FleetMember;
import dev.dbbulkhead.jdbc.ungated.CallerRules;
import dev.dbbulkhead.jdbc.ungated.DetectionSettings;
import dev.dbbulkhead.jdbc.ungated.support.UngatedConnectionLog;
import dev.dbbulkhead.jdbc.ungated.support.UngatedStartUpReport;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPoolPostProcessor;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * Watches the pools the gates admit to for connections borrowed outside every gate
 * ({@code db.bulkhead.ungated.*}): counted, each call site logged once, summed up when the application is ready,
 * and refused in {@code fail} mode. Only where there are gates: with {@code db.bulkhead.enabled=false} every
 * connection would be ungated.
 */
@AutoConfiguration(after = BulkheadAutoConfiguration.class)
@ConditionalOnBean(BulkheadRegistry.class)
public final class UngatedWorkAutoConfiguration {

    private static final String PREFIX = BulkheadProperties.PREFIX + ".ungated.";

    /** db-bulkhead's own start-up checks, and fleet coordination, which borrow outside the gates by design. */
    private static final List<String> OWN_CALLERS = List.of(ServerConnectionSlots.class.getName(),
            PostgresOnlyTimeoutsCheck.class.getName(), FleetMember.class.getPackageName());

    /** What a reported borrow asks of the application. */
    static final String ADVICE = "Gate it: call it from a @DbBulkhead method or through a BulkheadTemplate. If it is"
            + " meant to run outside the gates, list its class or package in " + PREFIX + "allowed-callers, or run"
            + " it in UngatedWork.allow(...).";

    @Bean
    @ConditionalOnMissingBean
    WatchedPools dbBulkheadWatchedPools(BulkheadProperties properties) {
        BulkheadProperties.Ungated ungated = properties.getUngated();
        CallerRules rules = CallerRules.defaults().recognising(OWN_CALLERS);
        List<String> allowed = ungated.getAllowedCallers();
        for (int i = 0; i < allowed.size(); i++) {
            String caller = allowed.get(i);
            CallerRules sofar = rules;
            rules = ResolvedSettings.requireValid(PREFIX + "allowed-callers[" + i + "]", caller,
                    value -> sofar.recognising(List.of(value)));
        }
        CallerRules all = rules;
        DetectionSettings settings = ResolvedSettings.requireValid(PREFIX + "max-call-sites",
                ungated.getMaxCallSites(), cap -> new DetectionSettings(all,
                        ungated.getMode() == BulkheadProperties.UngatedMode.FAIL, cap, ADVICE));
        return new WatchedPools(settings, ungated.getMode() != BulkheadProperties.UngatedMode.OFF,
                new UngatedConnectionLog());
    }

    /** Static, as a post-processor must be: it is created before the DataSource beans it watches. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static WatchedPoolPostProcessor dbBulkheadWatchedPoolPostProcessor(ObjectProvider<BulkheadProperties> properties,
            ListableBeanFactory beanFactory, ObjectProvider<WatchedPools> pools) {
        return new WatchedPoolPostProcessor(() -> GatedDataSources.names(properties.getObject(), beanFactory), pools);
    }

    @Bean
    @ConditionalOnMissingBean
    UngatedStartUpReport dbBulkheadUngatedStartUpReport(WatchedPools pools,
            ObjectProvider<BulkheadRegistry> registry) {
        return new UngatedStartUpReport(pools, registry);
    }
}
