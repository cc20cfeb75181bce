package dev.dbbulkhead.clinic;

import org.springframework.data.domain.PageRequest;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;

/** PetClinic's vets page, a page of the cached list: a cache hit is answered without a permit. */
@Controller
class VetController {

    private final VetRepository vets;

    VetController(VetRepository vets) {
        this.vets = vets;
    }

    @GetMapping("/vets.html")
    String showVetList(@RequestParam(defaultValue = "1") int page, Model model) {
        model.addAttribute("listVets", vets.findAll(PageRequest.of(page - 1, 5)).getContent());
        return "vets/vetList";
    }
}
