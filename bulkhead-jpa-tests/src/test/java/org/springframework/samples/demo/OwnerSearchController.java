package org.springframework.samples.demo;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** Pages whose owner comes from the formatter, and a count queried in the controller method itself. */
@RestController
public class OwnerSearchController {

    private final DemoOwnerRepository owners;

    OwnerSearchController(DemoOwnerRepository owners) {
        this.owners = owners;
    }

    @GetMapping("/by-name/{owner}")
    public String byName(@PathVariable DemoOwner owner) {
        return String.valueOf(owner.getId());
    }

    @GetMapping("/owner-count")
    public long count() {
        return owners.count();
    }
}
