package dev.dbbulkhead.clinic;

import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OneToMany;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;
import jakarta.validation.constraints.NotBlank;
import java.util.ArrayList;
import java.util.List;

/**
 * A pet owner, mapped as PetClinic maps it: the pets, and through them their visits, are eager and cascaded, so that
 * saving the owner saves a pet or a visit added to it — and so that a blank one added by a form's loader would be
 * written too, by any read-write transaction that flushes it.
 */
@Entity
@Table(name = "owners")
public class Owner extends BaseEntity {

    @NotBlank
    private String firstName;

    @NotBlank
    private String lastName;

    @NotBlank
    private String city;

    @OneToMany(cascade = CascadeType.ALL, fetch = FetchType.EAGER)
    @JoinColumn(name = "owner_id")
    @OrderBy("name")
    private final List<Pet> pets = new ArrayList<>();

    public Owner() {
    }

    public Owner(String firstName, String lastName, String city) {
        this.firstName = firstName;
        this.lastName = lastName;
        this.city = city;
    }

    public String getFirstName() {
        return firstName;
    }

    public void setFirstName(String firstName) {
        this.firstName = firstName;
    }

    public String getLastName() {
        return lastName;
    }

    public void setLastName(String lastName) {
        this.lastName = lastName;
    }

    public String getCity() {
        return city;
    }

    public void setCity(String city) {
        this.city = city;
    }

    public List<Pet> getPets() {
        return pets;
    }

    public void addPet(Pet pet) {
        if (pet.isNew()) {
            pets.add(pet);
        }
    }

    /** The pet of this id, or null. */
    public Pet getPet(Integer id) {
        return pets.stream().filter(pet -> id.equals(pet.getId())).findFirst().orElse(null);
    }

    /** The saved pet of this name, ignoring case, or null. */
    public Pet getPet(String name) {
        return pets.stream().filter(pet -> !pet.isNew() && name.equalsIgnoreCase(pet.getName())).findFirst()
                .orElse(null);
    }

    public void addVisit(Integer petId, Visit visit) {
        getPet(petId).addVisit(visit);
    }

    /** What the owner's page shows: the name, the city and every pet with its visits. */
    @Override
    public String toString() {
        return firstName + " " + lastName + " of " + city + ", pets " + pets;
    }
}
