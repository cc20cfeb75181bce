INSERT INTO product (id, name, stock) VALUES
    (1, 'espresso beans', 1000000),
    (2, 'filter papers', 1000000),
    (3, 'grinder', 1000000),
    (4, 'kettle', 1000000)
ON CONFLICT (id) DO NOTHING;
