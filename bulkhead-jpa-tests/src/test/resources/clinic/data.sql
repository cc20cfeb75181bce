INSERT INTO vets (first_name, last_name) VALUES ('James', 'Carter'), ('Helen', 'Leary'), ('Linda', 'Douglas'),
    ('Rafael', 'Ortega'), ('Henry', 'Stevens'), ('Sharon', 'Jenkins');
INSERT INTO types (name) VALUES ('cat'), ('dog'), ('lizard'), ('snake'), ('bird'), ('hamster');
