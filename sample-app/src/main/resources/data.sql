-- A thousand products, so that concurrent orders rarely wait for each other's row locks.
INSERT INTO product (id, name, stock)
SELECT n, 'product ' || n, 1000000 FROM generate_series(1, 1000) AS n
ON CONFLICT (id) DO NOTHING;
