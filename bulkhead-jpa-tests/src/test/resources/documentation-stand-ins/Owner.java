/** Stands for the application's own entity (the Spring MVC how-to's clinic). */
class Owner {

    Pet getPet(int petId) {
        return new Pet();
    }

    void addVisit(int petId, Visit visit) {
    }
}
