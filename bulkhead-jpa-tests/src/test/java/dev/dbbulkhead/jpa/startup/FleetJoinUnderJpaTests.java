package dev.dbbulkhead.jpa.startup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.fleet.BulkheadFleetAutoConfiguration;
import dev.dbbulkhead.fleet.support.FleetMembership;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.jpa.shop.Customer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Fleet coordination in a Spring Data JPA application on Hibernate: the membership joins before Hibernate's
 * bootstrap borrows from the pool, although the gates it caps come with the {@link JpaTransactionManager}, which
 * needs that bootstrap.
 */
@Timeout(60)
class FleetJoinUnderJpaTests {

    @Test
    void hibernatesBootstrapFindsTheMembersLeaseAndTheRepositoriesRunUnderTheShare() {
        JpaStartUp.runner()
                .withConfiguration(AutoConfigurations.of(BulkheadFleetAutoConfiguration.class))
                .withPropertyValues("db.bulkhead.workloads.shop.max-concurrent=4",
                        "db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=3",
                        "db.bulkhead.fleet.table=fleet_joined_before_jpa",
                        // Run by Hibernate on the connection it creates the schema on, during the bootstrap.
                        "spring.jpa.properties.hibernate.hbm2ddl.import_files=fleet/import-records-the-grant.sql")
                .withUserConfiguration(RepositoryEntryStartUpTests.GatedRepositoryApplication.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(JpaTestDatabase.sideQuery("SELECT count(*) FROM " + JpaTestDatabase.DATABASE.schema()
                            + ".grant_seen_by_hibernate WHERE granted >= 1"))
                            .as("the member's unexpired lease, as Hibernate's bootstrap saw it").isEqualTo("1");

                    assertThat(context.getBean(PlatformTransactionManager.class))
                            .isInstanceOf(JpaTransactionManager.class);
                    FleetMembership membership = context.getBean(FleetMembership.class);
                    assertThat(membership.ceiling("shop")).get()
                            .satisfies(ceiling -> assertThat(ceiling.ceiling()).isEqualTo(3));
                    RepositoryEntryStartUpTests.GatedCustomers customers =
                            context.getBean(RepositoryEntryStartUpTests.GatedCustomers.class);
                    customers.save(new Customer("fleet under JPA"));
                    assertThat(customers.findByName("fleet under JPA")).hasSize(1);
                });
    }
}
