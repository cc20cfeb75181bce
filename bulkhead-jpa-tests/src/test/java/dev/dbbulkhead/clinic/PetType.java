package dev.dbbulkhead.clinic;

import jakarta.persistence.Entity;
import jakarta.persistence.Table;

/** A kind of pet; the types are the clinic's reference data, loaded by {@code clinic/data.sql}. */
@Entity
@Table(name = "types")
public class PetType extends BaseEntity {

    private String name;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    @Override
    public String toString() {
        return name;
    }
}
