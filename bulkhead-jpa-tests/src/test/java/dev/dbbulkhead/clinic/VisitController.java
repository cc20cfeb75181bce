package dev.dbbulkhead.clinic;

import jakarta.validation.Valid;
import java.util.Map;
import org.springframework.stereotype.Controller;
import org.springframework.validation.BindingResult;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;

/**
 * PetClinic's visit form. Its loader adds a blank {@link Visit} to the pet it loaded, before the form binds the
 * visit's fields: inside a read-write transaction that pet would be managed and the blank visit flushed at commit
 * (a constraint violation, a 500 on the form). Here the loader's only database work is the repository's read-only
 * {@code findById}, which returns before the visit is added.
 */
@Controller
class VisitController {

    private static final String FORM = "pets/createOrUpdateVisitForm";

    private final OwnerRepository owners;

    VisitController(OwnerRepository owners) {
        this.owners = owners;
    }

    @InitBinder
    void setAllowedFields(WebDataBinder binder) {
        binder.setDisallowedFields("id");
    }

    @ModelAttribute("visit")
    Visit loadPetWithVisit(@PathVariable int ownerId, @PathVariable int petId, Map<String, Object> model) {
        Owner owner = owners.findById(ownerId).orElseThrow();
        Pet pet = owner.getPet(petId);
        model.put("pet", pet);
        model.put("owner", owner);
        Visit visit = new Visit();
        pet.addVisit(visit);
        return visit;
    }

    @GetMapping("/owners/{ownerId}/pets/{petId}/visits/new")
    String initNewVisitForm() {
        return FORM;
    }

    @PostMapping("/owners/{ownerId}/pets/{petId}/visits/new")
    String processNewVisitForm(@ModelAttribute Owner owner, @PathVariable int petId, @Valid Visit visit,
                               BindingResult result) {
        if (result.hasErrors()) {
            return FORM;
        }
        owner.addVisit(petId, visit);
        owners.save(owner);
        return "redirect:/owners/{ownerId}";
    }
}
