package dev.dbbulkhead.jpa.ungated;

/** The clinic on Spring Data JPA with Boot's defaults (open-session-in-view on), {@code warn} mode. */
@UngatedWorkApplication.OnJpa
class UngatedWorkOnJpaTests extends ReportedUngatedWork {

    @Override
    String startUpInfrastructure() {
        return "org.hibernate.engine.jdbc.env.internal";
    }
}
