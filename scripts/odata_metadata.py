"""What the project's Python tools need of a service's $metadata: entity sets, their types'
keys, properties and navigation. Shared by scripts/training-workload.py and
Benchmarks/soak.py, which both derive their requests from the schema rather than naming it."""

import xml.etree.ElementTree as ElementTree


def local_name(tag):
    return tag.rsplit("}", 1)[-1]


class MetadataModel:
    """Per entity type (`types[name]`): `keys`, `properties` (name -> EDM type), `max_length`,
    `generated` (store-generated properties), `navigation` (name -> (association, role)) and
    `targets` (name -> (target set, to many?)); `sets` maps each entity set to its type."""

    def __init__(self, metadata_xml):
        root = ElementTree.fromstring(metadata_xml)
        self.types, associations, self.sets = {}, {}, {}
        for element in root.iter():
            name = local_name(element.tag)
            if name == "EntityType":
                properties = {p.get("Name"): p for p in element if local_name(p.tag) == "Property"}
                self.types[element.get("Name")] = {
                    "keys": [ref.get("Name") for ref in element.iter() if local_name(ref.tag) == "PropertyRef"],
                    "properties": {n: p.get("Type") for n, p in properties.items()},
                    "max_length": {n: p.get("MaxLength") for n, p in properties.items()},
                    "generated": {n for n, p in properties.items()
                                  if any(k.endswith("StoreGeneratedPattern") and v == "Identity" for k, v in p.attrib.items())},
                    "navigation": {n.get("Name"): (n.get("Relationship").rsplit(".", 1)[-1], n.get("ToRole"))
                                   for n in element if local_name(n.tag) == "NavigationProperty"}}
            elif name == "Association":
                associations[element.get("Name")] = {
                    end.get("Role"): (end.get("Type").rsplit(".", 1)[-1], end.get("Multiplicity"))
                    for end in element if local_name(end.tag) == "End"}
            elif name == "EntitySet":
                self.sets[element.get("Name")] = element.get("EntityType").rsplit(".", 1)[-1]
        self.set_of_type = {entity_type: entity_set for entity_set, entity_type in self.sets.items()}
        for entity_type in self.types.values():
            entity_type["targets"] = {}
            for nav, (association, role) in entity_type["navigation"].items():
                target_type, multiplicity = associations[association][role]
                entity_type["targets"][nav] = (self.set_of_type.get(target_type), multiplicity == "*")

    def type_of(self, entity_set):
        return self.types[self.sets[entity_set]]


def key_literal(value, edm_type):
    """A key value as an OData URI literal of its EDM type."""
    if edm_type == "Edm.String":
        return "'" + str(value).replace("'", "''") + "'"
    if edm_type == "Edm.Int64":
        return f"{value}L"
    if edm_type == "Edm.Guid":
        return f"guid'{value}'"
    return str(value)
