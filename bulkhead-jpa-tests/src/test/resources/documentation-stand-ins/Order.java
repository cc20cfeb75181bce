/** Stands for the application's own entity, as the README says. */
class Order {

    Order(long productId, int quantity) {
    }
}
