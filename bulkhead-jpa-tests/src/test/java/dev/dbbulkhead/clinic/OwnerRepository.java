package dev.dbbulkhead.clinic;

import dev.dbbulkhead.annotation.DbBulkhead;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.transaction.annotation.Transactional;

/**
 * The owners, gated as the clinic's controllers call them: directly, each call one unit of work. Every call —
 * from a handler, a {@code @ModelAttribute} loader or the test — is admitted by {@code clinic} and runs in its own
 * transaction with Spring Data's attributes: {@code findById} read-only (inherited from {@code SimpleJpaRepository}),
 * the search read-only as declared here, {@code save} read-write.
 */
@DbBulkhead("clinic")
public interface OwnerRepository extends JpaRepository<Owner, Integer> {

    @Transactional(readOnly = true)
    Page<Owner> findByLastNameStartingWith(String lastName, Pageable pageable);
}
