package dev.dbbulkhead.clinic;

import org.springframework.data.domain.Page;
import org.springframework.data.domain.PageRequest;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.validation.BindingResult;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;

/**
 * PetClinic's owner pages. No {@code @DbBulkhead} here: the repository is gated, so the find form, which never
 * touches the database, takes no permit, and the loader is admitted read-only like the handlers' own calls.
 */
@Controller
class OwnerController {

    private final OwnerRepository owners;

    OwnerController(OwnerRepository owners) {
        this.owners = owners;
    }

    @InitBinder
    void setAllowedFields(WebDataBinder binder) {
        binder.setDisallowedFields("id");
    }

    /** Runs before every handler of this controller: a new owner without an id in the path, else the saved one. */
    @ModelAttribute("owner")
    Owner findOwner(@PathVariable(name = "ownerId", required = false) Integer ownerId) {
        return ownerId == null ? new Owner() : owners.findById(ownerId).orElseThrow();
    }

    @GetMapping("/owners/find")
    String initFindForm() {
        return "owners/findOwners";
    }

    @GetMapping("/owners")
    String processFindForm(@RequestParam(defaultValue = "1") int page, Owner owner, BindingResult result,
                           Model model) {
        String lastName = owner.getLastName() == null ? "" : owner.getLastName();
        Page<Owner> found = owners.findByLastNameStartingWith(lastName, PageRequest.of(page - 1, 5));
        if (found.isEmpty()) {
            result.rejectValue("lastName", "notFound", "not found");
            return "owners/findOwners";
        }
        if (found.getTotalElements() == 1) {
            return "redirect:/owners/" + found.getContent().get(0).getId();
        }
        model.addAttribute("listOwners", found.getContent());
        return "owners/ownersList";
    }

    @GetMapping("/owners/{ownerId}")
    String showOwner(@PathVariable int ownerId, Model model) {
        model.addAttribute("owner", owners.findById(ownerId).orElseThrow());
        return "owners/ownerDetails";
    }
}
