/** Stands for the application's own entity (the Spring MVC how-to's clinic). */
class Invoice {
}
