package dev.dbbulkhead.clinic;

import jakarta.persistence.Entity;
import jakarta.persistence.Table;

/** A vet of the clinic; the vets are reference data, loaded by {@code clinic/data.sql}, and their list is cached. */
@Entity
@Table(name = "vets")
public class Vet extends BaseEntity {

    private String firstName;

    private String lastName;

    public String getFirstName() {
        return firstName;
    }

    public String getLastName() {
        return lastName;
    }

    @Override
    public String toString() {
        return firstName + " " + lastName;
    }
}
