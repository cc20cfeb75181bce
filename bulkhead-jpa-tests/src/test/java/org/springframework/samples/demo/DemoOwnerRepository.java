package org.springframework.samples.demo;

import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data's repository, transactional on its own as PetClinic's are: it borrows in its proxy. */
public interface DemoOwnerRepository extends JpaRepository<DemoOwner, Long> {

    Optional<DemoOwner> findByName(String name);
}
