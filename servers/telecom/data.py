"""The carrier's catalogues: plans, add-ons, roaming zones and their countries, handsets,
and the words of outages and troubleshooting notes."""

from __future__ import annotations

CARRIER = "Bluewave Mobile"

PLANS = (
    # code, name, data_gb (None: unlimited), price_cents, roaming zones, hotspot_gb, intl calling, available
    ("basic-5", "Basic 5GB", 5, 3000, "", 0, False, True),
    ("plus-15", "Plus 15GB", 15, 4500, "", 5, False, True),
    ("unlimited", "Unlimited", None, 6500, "1", 15, False, True),
    ("unlimited-plus", "Unlimited Plus", None, 8000, "1,2", 40, True, True),
    ("unlimited-max", "Unlimited Max", None, 9500, "1,2,3", 60, True, True),
    ("talk-text", "Talk & Text", 1, 2000, "", 0, False, True),
    ("classic-10", "Classic 10GB", 10, 4000, "", 2, False, False),
    ("legacy-unlimited", "Legacy Unlimited", None, 7000, "1", 10, False, False),
)
"""Retired plans (available False) stay on the lines that have them."""

ZONES = {
    1: ("Canada", "Mexico"),
    2: ("United Kingdom", "France", "Germany", "Spain", "Italy", "Portugal", "Netherlands", "Ireland", "Greece",
        "Switzerland", "Austria", "Belgium", "Sweden", "Norway", "Denmark"),
    3: ("Japan", "Australia", "Brazil", "India", "Singapore", "Thailand", "South Africa", "United Arab Emirates",
        "Argentina", "New Zealand", "South Korea", "Turkey", "Egypt", "Colombia", "Peru"),
}
"""Roaming zones and their countries (the United States is home)."""

HOME_COUNTRY = "United States"

ADDONS = (
    # code, name, kind, data_mb, price_cents (per cycle; per day for a pass), zone
    ("data-1gb", "Data Pack 1GB", "data_pack", 1024, 1000, None),
    ("data-3gb", "Data Pack 3GB", "data_pack", 3072, 2000, None),
    ("data-10gb", "Data Pack 10GB", "data_pack", 10240, 4500, None),
    ("intl-calling", "International Calling", "intl_calling", 0, 1500, None),
    ("pass-zone1", "Roaming Day Pass Zone 1", "roaming_pass", 0, 500, 1),
    ("pass-zone2", "Roaming Day Pass Zone 2", "roaming_pass", 0, 1000, 2),
    ("pass-zone3", "Roaming Day Pass Zone 3", "roaming_pass", 0, 1500, 3),
)

DEVICES = (
    ("Apple", "iPhone 16 Pro", True), ("Apple", "iPhone 16", True), ("Apple", "iPhone 15", True),
    ("Apple", "iPhone 14", True), ("Apple", "iPhone 13 mini", True), ("Apple", "iPhone SE", False),
    ("Samsung", "Galaxy S25", True), ("Samsung", "Galaxy S24", True), ("Samsung", "Galaxy A55", False),
    ("Samsung", "Galaxy Z Flip6", True), ("Google", "Pixel 9", True), ("Google", "Pixel 8a", True),
    ("Google", "Pixel 7", False), ("Motorola", "moto g power", False), ("Motorola", "razr+", True),
    ("OnePlus", "OnePlus 12", False),
)
"""Make, model, and whether it usually runs an eSIM."""

LABELS = ("My phone", "Work phone", "Kid's phone", "Partner's phone", "Tablet", "Backup phone", "Parent's phone")

WRONG_APNS = ("internet", "wap.bluewave.net", "fast.bluewave.com", "vzwinternet")

OUTAGES = (
    ("data", "Fiber cut affecting mobile data; crews on site."),
    ("all", "Cell site power failure; service restored by portable generators."),
    ("data", "Core network upgrade causing slow or no mobile data."),
    ("voice", "Calls failing to connect on some towers."),
    ("all", "Storm damage to several towers."),
)

TICKET_NOTES = {
    "no_data": ("Mobile data was off on the handset; turned on, data works.",
                "Reset the APN to the default; data restored.",
                "Customer in an outage area; advised to wait for the fix."),
    "no_service": ("Airplane mode was on; customer turned it off.", "Re-seated the SIM; service back."),
    "slow_data": ("High-speed data used up for the cycle; offered a data pack.",
                  "Network mode was 3G only; set to 5G auto."),
    "roaming": ("Roaming was off on the line; enabled it.", "Explained zone passes before the trip."),
    "device": ("Walked the customer through a restart and a network settings reset.",),
    "billing": ("Explained the line items of the last bill.", "Set up autopay for the account."),
    "sim": ("SIM was PIN-locked; gave the PUK steps.", "Sent a replacement SIM."),
}
