package dev.dbbulkhead.clinic;

import java.util.Collection;
import org.springframework.stereotype.Controller;
import org.springframework.util.StringUtils;
import org.springframework.validation.BindingResult;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * PetClinic's pet form: three loaders run before each handler (the types, the owner, the pet), and the type is
 * bound by {@link PetTypeFormatter}. The form's handler adds a blank pet to the owner the loader loaded, as
 * PetClinic's does; it is never written because no transaction that could flush it is open around it.
 */
@Controller
@RequestMapping("/owners/{ownerId}")
class PetController {

    private static final String FORM = "pets/createOrUpdatePetForm";

    private final OwnerRepository owners;
    private final PetTypeRepository types;

    PetController(OwnerRepository owners, PetTypeRepository types) {
        this.owners = owners;
        this.types = types;
    }

    @ModelAttribute("types")
    Collection<PetType> populatePetTypes() {
        return types.findPetTypes();
    }

    @ModelAttribute("owner")
    Owner findOwner(@PathVariable int ownerId) {
        return owners.findById(ownerId).orElseThrow();
    }

    @ModelAttribute("pet")
    Pet findPet(@PathVariable int ownerId, @PathVariable(name = "petId", required = false) Integer petId) {
        return petId == null ? new Pet() : owners.findById(ownerId).orElseThrow().getPet(petId);
    }

    @InitBinder("owner")
    void initOwnerBinder(WebDataBinder binder) {
        binder.setDisallowedFields("id");
    }

    @GetMapping("/pets/new")
    String initCreationForm(Owner owner, Pet pet) {
        owner.addPet(pet);
        return FORM;
    }

    @PostMapping("/pets/new")
    String processCreationForm(Owner owner, Pet pet, BindingResult result) {
        if (!StringUtils.hasText(pet.getName())) {
            result.rejectValue("name", "required", "is required");
        } else if (owner.getPet(pet.getName()) != null) {
            result.rejectValue("name", "duplicate", "already exists");
        }
        if (pet.getType() == null) {
            result.rejectValue("type", "required", "is required");
        }
        if (result.hasErrors()) {
            return FORM;
        }
        owner.addPet(pet);
        owners.save(owner);
        return "redirect:/owners/{ownerId}";
    }
}
