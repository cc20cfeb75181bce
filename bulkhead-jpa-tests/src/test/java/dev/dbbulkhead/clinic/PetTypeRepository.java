package dev.dbbulkhead.clinic;

import dev.dbbulkhead.annotation.DbBulkhead;
import java.util.List;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.Repository;
import org.springframework.transaction.annotation.Transactional;

/** The pet types, read by the pet form's loader and by {@link PetTypeFormatter} while MVC binds the form. */
@DbBulkhead("clinic")
public interface PetTypeRepository extends Repository<PetType, Integer> {

    @Transactional(readOnly = true)
    @Query("SELECT ptype FROM PetType ptype ORDER BY ptype.name")
    List<PetType> findPetTypes();
}
