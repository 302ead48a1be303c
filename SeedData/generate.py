#!/usr/bin/env python3
"""Generates the car-dealer demo seed data, SeedData/<EntitySet>.json, deterministically.

    python3 SeedData/generate.py           # regenerate the five files, then validate them
    python3 SeedData/generate.py --check   # validate the committed files and that they are
                                           # exactly what this script generates (exit 1 if not)

Python 3 standard library only. Every random choice comes from one random.Random with a fixed
seed, and nothing iterates over a set or dict whose order could vary, so the output is
byte-for-byte stable. The rows the blog shows (Person 1 Bob Samson, his PersonCar 1 and 2, Car 2
and Car 5) are fixed literals; everything else is generated around them on a timeline that starts
the day Bob was entered, 2009-10-31, and ends on DATA_END.

The validation reads Schema/CarDealer.edmx, so the files are checked against the same contract the
gateway's seeder uses (see SeedData/README.md), plus the story's own invariants.
"""

import argparse
import datetime as dt
import json
import random
import re
import sys
import xml.etree.ElementTree as ET
from decimal import Decimal, ROUND_HALF_UP
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCHEMA_PATH = HERE.parent / "Schema" / "CarDealer.edmx"
RANDOM_SEED = 20091031

SECOND = 1000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
DAY = 24 * HOUR
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def utc_ms(year, month, day, hour=0, minute=0, second=0):
    moment = dt.datetime(year, month, day, hour, minute, second, tzinfo=dt.timezone.utc)
    return (moment - EPOCH) // dt.timedelta(milliseconds=1)


def to_datetime(ms):
    return EPOCH + dt.timedelta(milliseconds=ms)


# --- The blog's rows (acceptance fixture blog-person1-expand.json): never generated. ------------

BOB = {"personID": 1, "firstName": "Bob", "lastName": "Samson", "ssn": "543872934",
       "createDate": 1257008908440}
BOB_EXPLORER = {"carID": 2, "make": "Ford", "model": "Explorer",
                "manufactureDate": 1099242508440, "createStamp": 1257008940840}
BOB_MUSTANG = {"carID": 5, "make": "Ford", "model": "Mustang",
               "manufactureDate": 1075680000000, "createStamp": 1257109563660}
BOB_LINKS = [
    {"personCarID": 1, "createStamp": 1257103813990, "Person": 1, "Car": 2},
    {"personCarID": 2, "createStamp": 1257109628720, "Person": 1, "Car": 5},
]

# Service records run until the end of 2010 (the shop's second year on the system).
DATA_END = utc_ms(2010, 12, 31)
LAST_2009 = utc_ms(2009, 12, 31, 23)

# --- People ---------------------------------------------------------------------------------------

# Person 1 is Bob; IDs follow this order. A few names exercise quoting and Unicode on purpose
# (O'Brien, José Hernández, Zoë, Renée, "Mary Ann", Carter-Hughes).
PEOPLE = [
    ("Bob", "Samson"), ("Alice", "Samson"), ("Maria", "Gonzalez"), ("James", "O'Brien"),
    ("Linda", "Nguyen"), ("Michael", "Johnson"), ("Patricia", "Williams"), ("David", "Kowalski"),
    ("Jennifer", "Brown"), ("Robert", "Miller"), ("Susan", "Davis"), ("José", "Hernández"),
    ("Karen", "Thompson"), ("Richard", "Martinez"), ("Hiroshi", "Tanaka"), ("Thomas", "Clark"),
    ("Lisa", "Rodriguez"), ("Christopher", "Lewis"), ("Zoë", "Fischer"), ("Daniel", "Hall"),
    ("Priya", "Patel"), ("Matthew", "Young"), ("Mary Ann", "McDonald"), ("Wei", "Chen"),
    ("Emily", "Carter-Hughes"), ("Ahmed", "Hassan"), ("Sean", "Murphy"), ("Jessica", "Taylor"),
    ("Brian", "Scott"), ("Angela", "Green"), ("Steven", "Baker"), ("Michelle", "Adams"),
    ("Gary", "Nelson"), ("Deborah", "Hill"), ("Min-jun", "Kim"), ("Rebecca", "Mitchell"),
    ("Jason", "Roberts"), ("Renée", "Dubois"), ("Eric", "Phillips"), ("Laura", "Evans"),
    ("Giuseppe", "Romano"), ("Amanda", "Collins"), ("Ryan", "Stewart"), ("Melissa", "Sanchez"),
    ("Marcus", "Washington"), ("Heather", "Rogers"), ("Olga", "Ivanova"), ("Samantha", "Cook"),
    ("Dennis", "Morgan"), ("Tamika", "Jackson"), ("Kevin", "Walsh"), ("Teresa", "Rivera"),
    ("Raj", "Sharma"), ("Carol", "Bell"), ("DeShawn", "Harris"), ("Thi", "Tran"),
    ("Frank", "Murphy"), ("Fatima", "Ali"), ("William", "Anderson"), ("Nancy", "Robinson"),
]
PEOPLE_WITHOUT_SSN = 6

# --- Cars -----------------------------------------------------------------------------------------

# (make, model, first model year, last model year), limited to what was sold in 1995-2009.
CAR_CATALOGUE = [
    ("Ford", "Explorer", 1995, 2009), ("Ford", "Mustang", 1995, 2009), ("Ford", "F-150", 1995, 2009),
    ("Ford", "Taurus", 1995, 2007), ("Ford", "Focus", 2000, 2009), ("Ford", "Escape", 2001, 2009),
    ("Ford", "Ranger", 1995, 2009), ("Ford", "Fusion", 2006, 2009),
    ("Chevrolet", "Silverado 1500", 1999, 2009), ("Chevrolet", "Malibu", 1997, 2009),
    ("Chevrolet", "Impala", 2000, 2009), ("Chevrolet", "Tahoe", 1995, 2009),
    ("Chevrolet", "Cavalier", 1995, 2005), ("Chevrolet", "Cobalt", 2005, 2009),
    ("Chevrolet", "TrailBlazer", 2002, 2009), ("Chevrolet", "Equinox", 2005, 2009),
    ("Toyota", "Camry", 1995, 2009), ("Toyota", "Corolla", 1995, 2009), ("Toyota", "RAV4", 1996, 2009),
    ("Toyota", "Tacoma", 1995, 2009), ("Toyota", "Prius", 2001, 2009), ("Toyota", "Sienna", 1998, 2009),
    ("Toyota", "Highlander", 2001, 2009), ("Toyota", "4Runner", 1995, 2009),
    ("Honda", "Accord", 1995, 2009), ("Honda", "Civic", 1995, 2009), ("Honda", "CR-V", 1997, 2009),
    ("Honda", "Odyssey", 1995, 2009), ("Honda", "Pilot", 2003, 2009), ("Honda", "Element", 2003, 2009),
    ("Nissan", "Altima", 1995, 2009), ("Nissan", "Sentra", 1995, 2009), ("Nissan", "Maxima", 1995, 2009),
    ("Nissan", "Pathfinder", 1995, 2009), ("Nissan", "Xterra", 2000, 2009),
    ("Dodge", "Ram 1500", 1995, 2009), ("Dodge", "Grand Caravan", 1995, 2009),
    ("Dodge", "Durango", 1998, 2009), ("Dodge", "Neon", 1995, 2005), ("Dodge", "Charger", 2006, 2009),
    ("Jeep", "Grand Cherokee", 1995, 2009), ("Jeep", "Wrangler", 1997, 2009),
    ("Jeep", "Liberty", 2002, 2009), ("Jeep", "Cherokee", 1995, 2001),
    ("Chrysler", "PT Cruiser", 2001, 2009), ("Chrysler", "Town & Country", 1995, 2009),
    ("Chrysler", "300", 2005, 2009), ("GMC", "Sierra 1500", 1999, 2009), ("GMC", "Yukon", 1995, 2009),
    ("Subaru", "Outback", 1996, 2009), ("Subaru", "Forester", 1998, 2009), ("Subaru", "Impreza", 1995, 2009),
    ("Volkswagen", "Jetta", 1995, 2009), ("Volkswagen", "Passat", 1995, 2009),
    ("Volkswagen", "New Beetle", 1998, 2009), ("Hyundai", "Sonata", 1995, 2009),
    ("Hyundai", "Elantra", 1995, 2009), ("Hyundai", "Santa Fe", 2001, 2009),
    ("Kia", "Sorento", 2003, 2009), ("Kia", "Optima", 2001, 2009), ("Mazda", "Mazda3", 2004, 2009),
    ("Mazda", "MX-5 Miata", 1995, 2009), ("Mazda", "Tribute", 2001, 2009), ("Mazda", "Protegé", 1995, 2003),
    ("BMW", "325i", 1995, 2006), ("BMW", "528i", 1997, 2000), ("Mercedes-Benz", "C230", 1997, 2007),
    ("Mercedes-Benz", "E320", 1995, 2005), ("Lexus", "RX 300", 1999, 2003), ("Lexus", "ES 300", 1995, 2003),
    ("Acura", "TL", 1996, 2009), ("Pontiac", "Grand Am", 1995, 2005), ("Pontiac", "Aztek", 2001, 2005),
    ("Pontiac", "Vibe", 2003, 2009), ("Saturn", "SL2", 1995, 2002), ("Saturn", "Ion", 2003, 2007),
    ("Saturn", "Vue", 2002, 2009), ("Buick", "LeSabre", 1995, 2005), ("Oldsmobile", "Alero", 1999, 2004),
    ("Mercury", "Grand Marquis", 1995, 2009), ("Cadillac", "Escalade", 1999, 2009), ("Volvo", "V70", 1998, 2009),
]
CAR_COUNT = 90
CARS_WITHOUT_MANUFACTURE_DATE = 3
PREMIUM_MAKES = ["BMW", "Mercedes-Benz", "Lexus", "Acura", "Cadillac", "Volvo"]
RESALES = 16  # cars that changed hands (second PersonCar row)

# --- Maintenance catalogue --------------------------------------------------------------------------

# (description, category, laborHours, standardPrice, intervalMiles, weight, minimum odometer).
# Weight and minimum odometer only steer the generator; they are not properties.
MAINTENANCE = [
    ("Oil change", "Engine", "0.50", "39.95", 3000, 40, 0),
    ("Synthetic oil change", "Engine", "0.50", "69.95", 5000, 0, 0),  # chosen per car instead of oil change
    ("Tire rotation", "Tires", "0.50", "24.95", 6000, 12, 0),
    ("Wheel balance, four wheels", "Tires", "0.75", "49.95", None, 4, 0),
    ("Four-wheel alignment", "Tires", "1.00", "79.95", None, 5, 0),
    ("Tire replacement, set of four", "Tires", "1.50", "489.00", None, 3, 25000),
    ("Brake pad replacement", "Brakes", "1.50", "149.95", None, 6, 20000),
    ("Rear brake pad replacement", "Brakes", "1.50", "139.95", None, 3, 25000),
    ("Brake rotor resurfacing", "Brakes", "1.00", "119.95", None, 2, 30000),
    ("Brake fluid flush", "Brakes", "1.00", "89.95", 30000, 3, 20000),
    ("Battery replacement", "Electrical", "0.50", "119.95", None, 4, 30000),
    ("Alternator replacement", "Electrical", "2.00", "389.95", None, 1, 60000),
    ("Starter motor replacement", "Electrical", "1.80", "329.95", None, 1, 60000),
    ("Headlight bulb replacement", "Electrical", "0.30", "29.95", None, 3, 0),
    ("State safety inspection", "Inspection", "0.75", "25.00", None, 6, 0),
    ("Emissions test", "Inspection", "0.50", "39.95", None, 4, 0),
    ("Multi-point inspection", "Inspection", "0.50", "19.95", None, 5, 0),
    ("Engine air filter replacement", "Engine", "0.20", "24.95", 15000, 5, 0),
    ("Spark plug replacement", "Engine", "1.20", "129.95", 30000, 3, 30000),
    ("Timing belt replacement", "Engine", "4.00", "549.95", 90000, 1, 60000),
    ("Serpentine belt replacement", "Engine", "0.80", "119.95", 60000, 2, 50000),
    ("Coolant flush", "Cooling", "1.00", "99.95", 30000, 3, 30000),
    ("Transmission fluid service", "Transmission", "1.00", "139.95", 30000, 3, 30000),
    ("Cabin air filter replacement", "HVAC", "0.30", "34.95", 15000, 3, 0),
    ("A/C recharge", "HVAC", "1.00", "129.95", None, 2, 0),
]
OIL_CHANGE, SYNTHETIC_OIL_CHANGE = 1, 2  # maintenanceIDs
FRONT_PADS = 7
TIRE_ROTATION = 3

TECHNICIANS = ["Mike Alvarez", "Dave Peterson", "Luis Ortega", "Tom Becker", "Kim Nguyen",
               "Ray Holloway", "Sam Okafor"]

# Notes by maintenanceID; GENERAL_NOTES fit any job. A few contain quotes and apostrophes on purpose.
JOB_NOTES = {
    1: ["Oil filter housing gasket was seeping; replaced at no charge.",
        "Customer supplied their own oil.", "Recommended engine air filter at next visit."],
    2: ["Customer's own filter used.", "Reset oil life monitor."],
    3: ["Left rear tire at 4/32\"; advised replacement soon."],
    5: ["Vehicle pulled to the right before alignment.", "Customer declined alignment check afterwards."],
    6: ["Road hazard warranty sold with the tires.", "Old tires kept by customer."],
    7: ["Front pads at 2 mm; rotors within spec.", "Squeal reported by customer when braking."],
    8: ["Rear pads worn to wear indicator."],
    11: ["Old battery failed load test.", "Corroded terminals cleaned."],
    14: ["Driver side low beam."],
    15: ["Passed.", "Failed first check: wiper blades; replaced and passed."],
    16: ["Passed.", "Check engine light was on; code P0455 (EVAP leak), gas cap replaced."],
    17: ["No issues found.", "Recommended brake fluid flush within 3 months."],
    20: ["Water pump replaced at the same time on customer's request."],
    25: ["Leak test passed; 1.5 lb refrigerant added."],
}
GENERAL_NOTES = [
    "Customer waited in the lounge.", "Loaner car provided.",
    "Customer says \"check engine\" light came on twice last week; no codes stored.",
    "Warranty claim submitted to manufacturer.", "Coupon applied.",
    "Vehicle washed as a courtesy.", "Customer reports vibration at highway speed; could not reproduce.",
]


# --- Helpers ----------------------------------------------------------------------------------------

def at_business_time(rng, day_start, earliest_hour=14, latest_hour=23):
    """A whole second on the given UTC day during the shop's hours (08:00-17:00 US Central is
    14-23 UTC), moved off Sundays."""
    if to_datetime(day_start).weekday() == 6:
        day_start += DAY
    return day_start + rng.randrange(earliest_hour * HOUR, latest_hour * HOUR) // SECOND * SECOND


def midnight(ms):
    return ms - ms % DAY


def money(value):
    return Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def unique_ssn(rng, taken):
    while True:
        area = rng.choice([a for a in range(1, 900) if a != 666])
        ssn = f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"
        if ssn not in taken:
            taken.append(ssn)
            return ssn


# --- Generation -------------------------------------------------------------------------------------

def generate():
    rng = random.Random(RANDOM_SEED)

    # People: Bob on 2009-10-31; persons 2-4 the same evening and next day (their cars must get
    # IDs 1, 3 and 4, around Bob's Car 2 and Car 5); everyone else from 2009-11-02 on, IDs in
    # order of creation.
    create_dates = [BOB["createDate"],
                    utc_ms(2009, 10, 31, 17, 40) + rng.randrange(4 * HOUR),
                    utc_ms(2009, 11, 1, 14) + rng.randrange(3 * HOUR),
                    utc_ms(2009, 11, 1, 17, 30) + rng.randrange(3 * HOUR)]
    later = [at_business_time(rng, utc_ms(2009, 11, 2) + rng.randrange(58) * DAY)
             for _ in range(len(PEOPLE) - 4)]
    create_dates += sorted(later)
    no_ssn = rng.sample(range(2, len(PEOPLE) + 1), PEOPLE_WITHOUT_SSN)
    taken_ssns = [BOB["ssn"]]
    people = []
    for index, (first, last) in enumerate(PEOPLE):
        person_id = index + 1
        if person_id == 1:
            people.append(dict(BOB))
            continue
        ssn = None if person_id in no_ssn else unique_ssn(rng, taken_ssns)
        people.append({"personID": person_id, "firstName": first, "lastName": last, "ssn": ssn,
                       "createDate": create_dates[index] + rng.randrange(SECOND)})

    # How many cars each customer brings in: Bob his two, persons 2-4 one each, the rest 1-3.
    brought = {1: 2, 2: 1, 3: 1, 4: 1}
    for person_id in range(5, len(PEOPLE) + 1):
        brought[person_id] = 1
    extra = CAR_COUNT - sum(brought.values())
    while extra > 0:
        person_id = rng.randrange(5, len(PEOPLE) + 1)
        if brought[person_id] < 3:
            brought[person_id] += 1
            extra -= 1

    # Car creation events (createStamp, first owner, fixed row or None).
    events = [(BOB_EXPLORER["createStamp"], 1, BOB_EXPLORER), (BOB_MUSTANG["createStamp"], 1, BOB_MUSTANG),
              # Car 1 was on the lot before Bob walked in; person 2 bought it that evening.
              (utc_ms(2009, 10, 31, 16, 30) + rng.randrange(35 * MINUTE), 2, None)]
    for person_id in range(3, len(PEOPLE) + 1):
        stamp = people[person_id - 1]["createDate"] + rng.randrange(20 * SECOND, 8 * MINUTE)
        for number in range(brought[person_id]):
            if number > 0:
                same_visit = rng.random() < 0.5 or stamp + 20 * DAY > LAST_2009
                stamp += rng.randrange(MINUTE, 5 * MINUTE) if same_visit else rng.randrange(DAY, 20 * DAY)
            events.append((stamp, person_id, None))
    events.sort(key=lambda event: event[0])

    cars = []
    first_owner = {}
    premium_or_synthetic = {}
    year_of = {}
    unknown_date = rng.sample(range(6, CAR_COUNT + 1), CARS_WITHOUT_MANUFACTURE_DATE)
    for index, (stamp, owner, fixed) in enumerate(events):
        car_id = index + 1
        first_owner[car_id] = owner
        if fixed is not None:
            assert fixed["carID"] == car_id, f"blog car {fixed['carID']} landed on ID {car_id}"
            cars.append(dict(fixed))
            year_of[car_id] = to_datetime(fixed["manufactureDate"]).year
            premium_or_synthetic[car_id] = False
            continue
        make, model, first_year, last_year = rng.choice(CAR_CATALOGUE)
        years = list(range(max(first_year, 1995), min(last_year, 2009) + 1))
        year = rng.choices(years, weights=[y - 1992 for y in years])[0]
        year_of[car_id] = year
        last_day = utc_ms(2009, 9, 30) if year == 2009 else utc_ms(year, 12, 31)
        built = utc_ms(year, 1, 1) + rng.randrange((last_day - utc_ms(year, 1, 1)) // DAY + 1) * DAY
        if rng.random() < 0.15:  # some were entered with a time of day, as Bob's Explorer was
            built += rng.randrange(DAY)
        cars.append({"carID": car_id, "make": make, "model": model,
                     "manufactureDate": None if car_id in unknown_date else built,
                     "createStamp": stamp + rng.randrange(SECOND)})
        premium_or_synthetic[car_id] = make in PREMIUM_MAKES or (year >= 2006 and rng.random() < 0.4)

    # Ownership: each car's first owner is linked shortly after the car was entered (a few on
    # a later day); links the blog does not show come after Bob's two.
    links = list(BOB_LINKS)
    for car in cars:
        car_id = car["carID"]
        if car_id in (2, 5):
            continue
        owner = first_owner[car_id]
        earliest = max(car["createStamp"], people[owner - 1]["createDate"])
        if rng.random() < 0.85:
            stamp = earliest + rng.randrange(5 * SECOND, 4 * MINUTE)
        else:
            stamp = earliest + rng.randrange(HOUR, 3 * DAY)
        if stamp <= BOB_LINKS[-1]["createStamp"]:
            stamp = at_business_time(rng, utc_ms(2009, 11, 2), 14, 17)  # keyed in the next morning
        links.append({"personCarID": None, "createStamp": stamp, "Person": owner, "Car": car_id})

    # Resales: a customer's car bought by another customer months later.
    count = {person["personID"]: 0 for person in people}
    for link in links:
        count[link["Person"]] += 1
    candidates = [car["carID"] for car in cars if car["carID"] not in (2, 5)]
    rng.shuffle(candidates)
    sold = 0
    for car_id in candidates:
        if sold == RESALES:
            break
        first = next(link for link in links if link["Car"] == car_id)
        when = at_business_time(rng, midnight(first["createStamp"]) + rng.randrange(150, 420) * DAY)
        if when > DATA_END - 45 * DAY:
            continue
        buyers = [pid for pid in sorted(count) if pid not in (1, first["Person"]) and count[pid] < 3]
        buyer = rng.choice(buyers)
        count[buyer] += 1
        links.append({"personCarID": None, "createStamp": when + rng.randrange(SECOND),
                      "Person": buyer, "Car": car_id})
        sold += 1
    links.sort(key=lambda link: link["createStamp"])
    for index, link in enumerate(links):
        link["personCarID"] = index + 1

    maintenance = []
    for index, (description, category, hours, price, interval, _, _) in enumerate(MAINTENANCE):
        maintenance.append({"maintenanceID": index + 1, "description": description, "category": category,
                            "laborHours": hours, "standardPrice": price, "intervalMiles": interval})

    records = generate_service_history(rng, cars, links, year_of, premium_or_synthetic)
    return {"Person": people, "Car": cars, "PersonCar": links, "Maintenance": maintenance,
            "PersonCarMaintenance": records}


def generate_service_history(rng, cars, links, year_of, premium_or_synthetic):
    car_by_id = {car["carID"]: car for car in cars}
    ownership_end = {}
    for link in links:  # in createStamp order, so a later owner ends the earlier one's window
        earlier = [other for other in links if other["Car"] == link["Car"] and other["createStamp"] < link["createStamp"]]
        if earlier:
            ownership_end[earlier[-1]["personCarID"]] = link["createStamp"]
    rate = {car["carID"]: rng.uniform(26, 44) for car in cars}  # miles per day
    odometer = {}  # carID -> (time, miles) at the last visit
    eligible_weights = [entry[5] for entry in MAINTENANCE]

    def mileage_at(car_id, when):
        if car_id not in odometer:
            built = car_by_id[car_id]["manufactureDate"] or utc_ms(year_of[car_id], 7, 1)
            miles = int((when - built) / DAY * rate[car_id] * rng.uniform(0.8, 1.2)) + rng.randrange(5, 60)
        else:
            last_time, last_miles = odometer[car_id]
            miles = last_miles + int((when - last_time) / DAY * rate[car_id] * rng.uniform(0.75, 1.25)) + 1
        odometer[car_id] = (when, miles)
        return miles

    def pick_jobs(car_id, miles):
        weights = [w if miles >= entry[6] else 0 for w, entry in zip(eligible_weights, MAINTENANCE)]
        jobs = [rng.choices(range(1, len(MAINTENANCE) + 1), weights=weights)[0]]
        if rng.random() < 0.3:
            second = rng.choices(range(1, len(MAINTENANCE) + 1), weights=weights)[0]
            if second != jobs[0]:
                jobs.append(second)
        oil = SYNTHETIC_OIL_CHANGE if premium_or_synthetic[car_id] else OIL_CHANGE
        return [oil if job == OIL_CHANGE else job for job in jobs]

    visits = []  # (serviceDate, personCarID, carID, [maintenanceID])
    for link in links:
        start, car_id = link["createStamp"], link["Car"]
        end = ownership_end.get(link["personCarID"], DATA_END)
        if link["personCarID"] == 1:
            # Bob's Explorer: what `dealer maintenance 1` shows.
            plan = [(16, [OIL_CHANGE, TIRE_ROTATION]), (139, [OIL_CHANGE]), (288, [FRONT_PADS, OIL_CHANGE])]
            for days, jobs in plan:
                visits.append((at_business_time(rng, midnight(start) + days * DAY), 1, car_id, jobs))
            continue
        day = midnight(start) + rng.randrange(10, 120) * DAY
        while day < end - DAY:
            when = at_business_time(rng, day)
            if when <= start or when >= end:
                break
            visits.append((when, link["personCarID"], car_id, None))
            day += rng.randrange(120, 250) * DAY

    records = []
    for when, pc_id, car_id, jobs in sorted(visits, key=lambda visit: (visit[0], visit[1])):
        miles = mileage_at(car_id, when)
        jobs = jobs or pick_jobs(car_id, miles)
        technician = None if rng.random() < 0.04 else rng.choice(TECHNICIANS)
        entered = when + rng.randrange(HOUR, 5 * HOUR)
        for job in jobs:
            standard = money(MAINTENANCE[job - 1][3])
            roll = rng.random()
            if job == 6:  # tire prices depend on the car
                cost = money(standard * Decimal(str(round(rng.uniform(0.8, 1.4), 3))))
            elif roll < 0.7:
                cost = standard
            elif roll < 0.95:
                cost = money(standard * Decimal(str(round(rng.uniform(0.92, 1.2), 3))))
            else:
                cost = money(standard * Decimal("0.85"))
            notes = None
            if rng.random() < 0.2:
                notes = rng.choice(JOB_NOTES.get(job, []) + GENERAL_NOTES)
            entered += rng.randrange(20 * SECOND, 90 * SECOND)
            records.append({"personCarMaintenanceID": len(records) + 1, "serviceDate": when,
                            "mileage": miles, "cost": str(cost), "technician": technician,
                            "notes": notes, "createStamp": entered,
                            "Maintenance": job, "PersonCar": pc_id})
    return records


# --- Output -----------------------------------------------------------------------------------------

def render(rows, schema_type):
    """One object per line, keys in schema declaration order (properties, then single-valued
    navigation properties), DateTime values as /Date(ms)/."""
    lines = []
    for row in rows:
        ordered = {}
        for prop in schema_type["properties"]:
            value = row[prop["name"]]
            if prop["type"] == "Edm.DateTime" and value is not None:
                value = f"/Date({value})/"
            ordered[prop["name"]] = value
        for nav in schema_type["references"]:
            ordered[nav] = row[nav]
        lines.append("  " + json.dumps(ordered, ensure_ascii=False))
    return "[\n" + ",\n".join(lines) + "\n]\n"


# --- Schema (read from the EDMX, as the seeder does) ----------------------------------------------

EDM_NS = "{http://schemas.microsoft.com/ado/2008/09/edm}"


def read_schema():
    root = ET.parse(SCHEMA_PATH).getroot()
    schema = root.find(f".//{EDM_NS}Schema")
    namespace = schema.get("Namespace")
    ends = {}
    for association in schema.findall(f"{EDM_NS}Association"):
        for end in association.findall(f"{EDM_NS}End"):
            ends[(f"{namespace}.{association.get('Name')}", end.get("Role"))] = (end.get("Type"), end.get("Multiplicity"))
    types = {}
    for entity in schema.findall(f"{EDM_NS}EntityType"):
        properties = [{"name": p.get("Name"), "type": p.get("Type"), "nullable": p.get("Nullable", "true") == "true",
                       "maxLength": int(p.get("MaxLength")) if p.get("MaxLength") else None,
                       "precision": int(p.get("Precision")) if p.get("Precision") else None,
                       "scale": int(p.get("Scale")) if p.get("Scale") else None}
                      for p in entity.findall(f"{EDM_NS}Property")]
        references = {}
        for nav in entity.findall(f"{EDM_NS}NavigationProperty"):
            target_type, multiplicity = ends[(nav.get("Relationship"), nav.get("ToRole"))]
            if multiplicity in ("1", "0..1"):
                references[nav.get("Name")] = target_type
        types[f"{namespace}.{entity.get('Name')}"] = {
            "key": [ref.get("Name") for ref in entity.find(f"{EDM_NS}Key").findall(f"{EDM_NS}PropertyRef")],
            "properties": properties, "references": references}
    sets = {}
    for entity_set in schema.iter(f"{EDM_NS}EntitySet"):
        sets[entity_set.get("Name")] = types[entity_set.get("EntityType")]
    set_of_type = {entity_set.get("EntityType"): entity_set.get("Name") for entity_set in schema.iter(f"{EDM_NS}EntitySet")}
    for schema_type in types.values():
        schema_type["references"] = {nav: set_of_type[target] for nav, target in schema_type["references"].items()}
    return sets


# --- Validation -------------------------------------------------------------------------------------

DATE_PATTERN = re.compile(r"^/Date\((-?\d+)\)/$")


def validate(files, sets):
    """files: entity set name -> parsed JSON array as it is on disk. Returns a list of problems."""
    problems = []
    keys = {}
    for set_name, schema_type in sets.items():
        rows = files.get(set_name)
        if not isinstance(rows, list):
            problems.append(f"{set_name}.json: missing or not an array")
            continue
        (key,) = schema_type["key"]
        expected_keys = [p["name"] for p in schema_type["properties"]] + list(schema_type["references"])
        ids = []
        for row in rows:
            where = f"{set_name}({row.get(key)})"
            if sorted(row) != sorted(expected_keys):
                problems.append(f"{where}: keys {sorted(row)} != {sorted(expected_keys)}")
                continue
            for prop in schema_type["properties"]:
                value, kind = row[prop["name"]], prop["type"]
                label = f"{where}.{prop['name']}"
                if value is None:
                    if not prop["nullable"]:
                        problems.append(f"{label}: null in a non-nullable property")
                elif kind == "Edm.Int32":
                    if type(value) is not int or not -2**31 <= value < 2**31:
                        problems.append(f"{label}: {value!r} is not an Int32")
                elif kind == "Edm.String":
                    if not isinstance(value, str) or (prop["maxLength"] and len(value) > prop["maxLength"]):
                        problems.append(f"{label}: {value!r} not a string within MaxLength {prop['maxLength']}")
                elif kind == "Edm.DateTime":
                    if not isinstance(value, str) or not DATE_PATTERN.match(value):
                        problems.append(f"{label}: {value!r} is not /Date(ms)/")
                elif kind == "Edm.Decimal":
                    scale, precision = prop["scale"] or 0, prop["precision"] or 29
                    shape = rf"^-?\d+\.\d{{{scale}}}$" if scale else r"^-?\d+$"
                    digits = len(value.replace("-", "").replace(".", "").lstrip("0")) if isinstance(value, str) else 0
                    if not isinstance(value, str) or not re.match(shape, value) or digits > precision:
                        problems.append(f"{label}: {value!r} is not a Decimal({precision},{scale}) string")
                else:
                    problems.append(f"{label}: type {kind} not handled by this check")
            ids.append(row[key])
        if ids != list(range(1, len(ids) + 1)):
            problems.append(f"{set_name}: keys are not contiguous from 1 in file order")
        keys[set_name] = set(ids)
    if problems:
        return problems
    for set_name, schema_type in sets.items():
        key = schema_type["key"][0]
        for row in files[set_name]:
            for nav, target_set in schema_type["references"].items():
                if row[nav] not in keys[target_set]:
                    problems.append(f"{set_name}({row[key]}).{nav}: {row[nav]!r} is not a {target_set} key")
    return problems or validate_story(files)


def validate_story(files):
    """The invariants of the demo itself, on the rows as they are on disk."""
    problems = []

    def ms(value):
        return int(DATE_PATTERN.match(value).group(1))

    def on_disk(row):
        return {k: (f"/Date({v})/" if k in ("createDate", "createStamp", "manufactureDate") else v) for k, v in row.items()}

    people = {row["personID"]: row for row in files["Person"]}
    cars = {row["carID"]: row for row in files["Car"]}
    links = {row["personCarID"]: row for row in files["PersonCar"]}
    jobs = {row["maintenanceID"]: row for row in files["Maintenance"]}
    records = files["PersonCarMaintenance"]

    for expected, actual in [(BOB, people[1]), (BOB_EXPLORER, cars[2]), (BOB_MUSTANG, cars[5]),
                             (BOB_LINKS[0], links[1]), (BOB_LINKS[1], links[2])]:
        if on_disk(expected) != actual:
            problems.append(f"blog row differs: expected {on_disk(expected)}, got {actual}")
    bobs = sorted(link["personCarID"] for link in links.values() if link["Person"] == 1)
    if bobs != [1, 2]:
        problems.append(f"Bob owns PersonCar {bobs}, expected exactly [1, 2]")

    ssns = [p["ssn"] for p in people.values() if p["ssn"] is not None]
    if len(set(ssns)) != len(ssns) or not all(re.fullmatch(r"\d{9}", s) for s in ssns):
        problems.append("ssn values must be unique 9-digit strings")
    for person_id in people:
        owned = [link for link in links.values() if link["Person"] == person_id]
        if not 1 <= len(owned) <= 3:
            problems.append(f"Person({person_id}) has {len(owned)} cars, expected 1-3")
    for car_id, car in cars.items():
        owners = sorted((ms(l["createStamp"]), l["Person"]) for l in links.values() if l["Car"] == car_id)
        if not 1 <= len(owners) <= 2 or len({person for _, person in owners}) != len(owners):
            problems.append(f"Car({car_id}) has owners {owners}")
        if to_datetime(ms(car["createStamp"])).year != 2009:
            problems.append(f"Car({car_id}) createStamp not in 2009")
        if car["manufactureDate"] and not 1995 <= to_datetime(ms(car["manufactureDate"])).year <= 2009:
            problems.append(f"Car({car_id}) manufactureDate outside 1995-2009")
    previous = 0
    for link in links.values():
        stamp = ms(link["createStamp"])
        if stamp < ms(people[link["Person"]]["createDate"]) or stamp < ms(cars[link["Car"]]["createStamp"]):
            problems.append(f"PersonCar({link['personCarID']}) predates its person or car")
        if stamp <= previous:
            problems.append(f"PersonCar({link['personCarID']}) out of createStamp order")
        previous = stamp

    odometer = {}
    for record in sorted(records, key=lambda r: (ms(r["serviceDate"]), r["personCarMaintenanceID"])):
        label = f"PersonCarMaintenance({record['personCarMaintenanceID']})"
        link = links[record["PersonCar"]]
        served, entered = ms(record["serviceDate"]), ms(record["createStamp"])
        if served <= ms(link["createStamp"]):
            problems.append(f"{label}: serviced before the car was linked")
        later = [ms(l["createStamp"]) for l in links.values()
                 if l["Car"] == link["Car"] and ms(l["createStamp"]) > ms(link["createStamp"])]
        if later and served >= min(later):
            problems.append(f"{label}: serviced after the car changed hands")
        if not served < entered < served + 6 * HOUR:
            problems.append(f"{label}: createStamp not a few hours after serviceDate")
        last = odometer.get(link["Car"])
        if last and (record["mileage"] < last[1] or (served > last[0]) != (record["mileage"] > last[1])):
            problems.append(f"{label}: mileage must rise between visits to Car({link['Car']}) and match within one")
        odometer[link["Car"]] = (served, record["mileage"])
        standard = Decimal(jobs[record["Maintenance"]]["standardPrice"])
        if not standard * Decimal("0.5") <= Decimal(record["cost"]) <= standard * Decimal("1.5"):
            problems.append(f"{label}: cost {record['cost']} far from standard {standard}")
    bob_explorer = [jobs[r["Maintenance"]]["description"] for r in records if r["PersonCar"] == 1]
    if len(bob_explorer) < 3 or "Oil change" not in bob_explorer:
        problems.append(f"PersonCar(1) maintenance {bob_explorer}: want >= 3 incl. an Oil change")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; fail unless the files on disk validate and match the generator")
    arguments = parser.parse_args()

    sets = read_schema()
    data = generate()
    texts = {name: render(data[name], sets[name]) for name in sets}
    if arguments.check:
        stale = [name for name, text in texts.items()
                 if not (HERE / f"{name}.json").exists() or (HERE / f"{name}.json").read_text(encoding="utf-8") != text]
        if stale:
            print(f"out of date (run generate.py): {', '.join(stale)}", file=sys.stderr)
            return 1
    else:
        for name, text in texts.items():
            (HERE / f"{name}.json").write_text(text, encoding="utf-8")

    on_disk = {name: json.loads((HERE / f"{name}.json").read_text(encoding="utf-8")) for name in sets}
    problems = validate(on_disk, sets)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(", ".join(f"{name}: {len(rows)}" for name, rows in on_disk.items()) + " - valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
