package org.springframework.samples.demo;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** The owner's page: MVC loads the owner in a {@code @ModelAttribute} method before the handler, as PetClinic does. */
@RestController
public class OwnerController {

    private final DemoOwnerRepository owners;

    OwnerController(DemoOwnerRepository owners) {
        this.owners = owners;
    }

    @ModelAttribute("owner")
    public DemoOwner findOwner(@PathVariable long ownerId) {
        return owners.findById(ownerId).orElseThrow();
    }

    @GetMapping("/owners/{ownerId}")
    public String show(@ModelAttribute("owner") DemoOwner owner) {
        return owner.getName();
    }
}
