package dev.dbbulkhead.jpa.ungated;

/** The clinic on Spring Data JPA with Boot's defaults (open-session-in-view on), {@code fail} mode. */
@UngatedWorkApplication.OnJpa
class UngatedWorkRefusedOnJpaTests extends RefusedUngatedWork {
}
