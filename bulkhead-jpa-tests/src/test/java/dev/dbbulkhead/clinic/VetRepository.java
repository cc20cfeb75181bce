package dev.dbbulkhead.clinic;

import dev.dbbulkhead.annotation.DbBulkhead;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.repository.Repository;
import org.springframework.transaction.annotation.Transactional;

/**
 * The vets, as PetClinic declares them: read-only and cached. The cache answers before admission, so a hit takes
 * no permit of {@code vets}, no transaction and no connection; only a miss is admitted.
 */
@DbBulkhead("vets")
public interface VetRepository extends Repository<Vet, Integer> {

    @Transactional(readOnly = true)
    @Cacheable("vets")
    Page<Vet> findAll(Pageable pageable);
}
