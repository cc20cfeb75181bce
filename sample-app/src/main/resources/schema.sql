CREATE TABLE IF NOT EXISTS product (
    id    bigint PRIMARY KEY,
    name  text   NOT NULL,
    stock int    NOT NULL CHECK (stock >= 0)
);

CREATE TABLE IF NOT EXISTS purchase (
    id         bigserial   PRIMARY KEY,
    product_id bigint      NOT NULL REFERENCES product (id),
    quantity   int         NOT NULL CHECK (quantity > 0),
    created_at timestamptz NOT NULL DEFAULT now()
);
