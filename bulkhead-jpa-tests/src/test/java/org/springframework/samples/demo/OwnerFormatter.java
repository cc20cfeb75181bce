package org.springframework.samples.demo;

import java.util.Locale;
import org.springframework.format.Formatter;
import org.springframework.stereotype.Component;

/** Binds an owner from its name, loading it, as PetClinic's formatter of pet types does. */
@Component
public class OwnerFormatter implements Formatter<DemoOwner> {

    private final DemoOwnerRepository owners;

    OwnerFormatter(DemoOwnerRepository owners) {
        this.owners = owners;
    }

    @Override
    public DemoOwner parse(String name, Locale locale) {
        return owners.findByName(name).orElseThrow();
    }

    @Override
    public String print(DemoOwner owner, Locale locale) {
        return owner.getName();
    }
}
