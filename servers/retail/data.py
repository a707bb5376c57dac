"""Static catalogues of the Northwind Store: products, addresses, payment methods, reasons."""

from __future__ import annotations

APPAREL_SIZES = ("XS", "S", "M", "L", "XL")
SOCK_SIZES = ("S/M", "L/XL")

# name, category, vendor, price in cents, sizes, colours, weight in grams, description
ProductPlan = tuple[str, str, str, int, tuple[str, ...], tuple[str, ...], int, str]

PRODUCTS: tuple[ProductPlan, ...] = (
    ("Classic Logo Tee", "apparel", "Northwind Apparel", 2400, APPAREL_SIZES, ("Black", "White", "Heather Grey"), 180,
     "Soft ring-spun cotton tee with the Northwind logo on the chest."),
    ("Circuit Graphic Tee", "apparel", "Northwind Apparel", 2800, APPAREL_SIZES, ("Navy", "Forest Green"), 180,
     "Organic cotton tee with a circuit-board print across the back."),
    ("Everyday Crew Sweatshirt", "apparel", "Northwind Apparel", 5200, APPAREL_SIZES, ("Oatmeal", "Charcoal"), 520,
     "Midweight brushed-fleece crewneck for cold offices."),
    ("Trail Zip Hoodie", "apparel", "Northwind Apparel", 6800, APPAREL_SIZES, ("Black", "Olive", "Burgundy"), 640,
     "Full-zip hoodie with a lined hood and zip pockets."),
    ("Summit Puffer Jacket", "apparel", "Ridgeline Outfitters", 14900, APPAREL_SIZES, ("Black", "Cobalt"), 780,
     "Water-resistant recycled-down puffer that packs into its own pocket."),
    ("Windbreaker Shell", "apparel", "Ridgeline Outfitters", 8900, APPAREL_SIZES, ("Orange", "Slate"), 320,
     "Lightweight packable shell with taped seams."),
    ("Quarter-Zip Pullover", "apparel", "Northwind Apparel", 7400, APPAREL_SIZES, ("Navy", "Heather Grey"), 450,
     "Performance knit quarter-zip with thumbholes."),
    ("Polo Shirt", "apparel", "Northwind Apparel", 4200, APPAREL_SIZES, ("White", "Navy", "Black"), 240,
     "Pique polo with an embroidered logo."),
    ("Merino Beanie", "apparel", "Ridgeline Outfitters", 3200, (), ("Charcoal", "Mustard", "Navy"), 90,
     "Rib-knit merino beanie, one size."),
    ("Dad Cap", "apparel", "Northwind Apparel", 2600, (), ("Khaki", "Black", "Stone"), 110,
     "Unstructured cotton twill cap with an adjustable strap."),
    ("Crew Socks 3-Pack", "apparel", "Northwind Apparel", 1800, SOCK_SIZES, ("Mixed",), 150,
     "Three pairs of cushioned cotton-blend crew socks."),
    ("Commuter Backpack", "bags", "Ridgeline Outfitters", 11900, (), ("Black", "Grey"), 1100,
     "22-litre backpack with a padded 16-inch laptop sleeve."),
    ("Weekender Duffel", "bags", "Ridgeline Outfitters", 13500, (), ("Black", "Tan"), 1400,
     "40-litre waxed-canvas duffel with a shoe compartment."),
    ("Canvas Tote", "bags", "Northwind Apparel", 2200, (), ("Natural", "Black"), 300,
     "Heavy canvas tote with an inside pocket."),
    ("Sling Bag", "bags", "Ridgeline Outfitters", 4800, (), ("Black", "Olive"), 350,
     "Crossbody sling for a phone, keys and a small tablet."),
    ("Laptop Sleeve", "bags", "Northwind Gear", 3900, ('13"', '14"', '16"'), ("Grey", "Navy"), 280,
     "Felt-lined neoprene sleeve with a zip pocket."),
    ("Insulated Water Bottle", "drinkware", "Northwind Gear", 3400, ("20 oz", "32 oz"), ("Black", "White", "Sage"), 400,
     "Double-wall stainless bottle; cold for 24 hours."),
    ("Ceramic Mug", "drinkware", "Northwind Gear", 1600, (), ("White", "Black"), 380,
     "12 oz stoneware mug with the Northwind logo."),
    ("Travel Tumbler", "drinkware", "Northwind Gear", 2900, (), ("Black", "Copper", "White"), 330,
     "16 oz leak-proof tumbler that fits car cup holders."),
    ("Pour-Over Coffee Set", "drinkware", "Kettle & Co", 5600, (), ("Glass",), 900,
     "Glass dripper, carafe and 100 filters."),
    ("Wireless Charging Pad", "tech", "Voltline", 3900, (), ("Black", "White"), 150,
     "15 W Qi charging pad with a USB-C cable."),
    ("USB-C Hub 7-in-1", "tech", "Voltline", 5900, (), ("Space Grey",), 120,
     "HDMI 4K, three USB-A, SD and microSD readers and 100 W pass-through charging."),
    ("Noise-Cancelling Earbuds", "tech", "Voltline", 12900, (), ("Black", "White"), 60,
     "Active noise cancelling earbuds with a wireless charging case."),
    ("Portable Power Bank", "tech", "Voltline", 4900, ("10000 mAh", "20000 mAh"), ("Black",), 260,
     "USB-C power bank with fast charging."),
    ("Mechanical Keyboard", "tech", "Keyforge", 10900, ("TKL", "Full"), ("Black", "White"), 950,
     "Hot-swappable mechanical keyboard with brown switches."),
    ("Ergonomic Mouse", "tech", "Keyforge", 6900, (), ("Graphite", "Off-White"), 140,
     "Vertical wireless mouse for right hands."),
    ("Desk Mat", "office", "Northwind Gear", 2900, ("M", "XL"), ("Charcoal", "Navy"), 450,
     "Felt and cork desk mat with a stitched edge."),
    ("Dot-Grid Notebook", "office", "Paperline", 1900, ("A5", "A4"), ("Black", "Red", "Blue"), 300,
     "192 pages of 100 gsm dot-grid paper, lay-flat binding."),
    ("Monitor Stand", "office", "Northwind Gear", 7900, (), ("Walnut", "Oak"), 2300,
     "Solid-wood monitor riser with a cable slot."),
    ("Sticker Pack", "office", "Northwind Gear", 800, (), ("Assorted",), 30,
     "Twelve vinyl stickers of Northwind artwork."),
    ("Enamel Pin Set", "office", "Northwind Gear", 1400, (), ("Assorted",), 40,
     "Four enamel pins on a backing card."),
    ("Gel Pen Set", "office", "Paperline", 1200, (), ("Black", "Assorted"), 80,
     "Six 0.5 mm quick-dry gel pens."),
    ("Yoga Mat", "outdoor", "Ridgeline Outfitters", 6400, (), ("Plum", "Teal", "Black"), 1800,
     "5 mm natural-rubber mat with alignment lines."),
    ("Camping Hammock", "outdoor", "Ridgeline Outfitters", 5900, ("Single", "Double"), ("Forest", "Sky"), 650,
     "Parachute-nylon hammock with tree straps."),
    ("Trail Running Cap", "outdoor", "Ridgeline Outfitters", 3000, (), ("Black", "Neon"), 70,
     "Quick-dry cap with reflective trim."),
    ("Picnic Blanket", "outdoor", "Ridgeline Outfitters", 4400, (), ("Red Plaid", "Blue Plaid"), 1200,
     "Water-resistant backed blanket that rolls up with a strap."),
)
ARCHIVED_PRODUCTS = ("Windbreaker Shell", "Gel Pen Set")
"""Products no longer sold: their variants stay on past orders but cannot be ordered."""

SKU_PREFIX = {"apparel": "AP", "bags": "BG", "drinkware": "DW", "tech": "TC", "office": "OF", "outdoor": "OD"}

# city, region (US state code), postal code prefix
CITIES: tuple[tuple[str, str, str], ...] = (
    ("Seattle", "WA", "981"), ("Portland", "OR", "972"), ("San Francisco", "CA", "941"), ("Los Angeles", "CA", "900"),
    ("San Diego", "CA", "921"), ("Denver", "CO", "802"), ("Austin", "TX", "787"), ("Dallas", "TX", "752"),
    ("Houston", "TX", "770"), ("Chicago", "IL", "606"), ("Minneapolis", "MN", "554"), ("Detroit", "MI", "482"),
    ("Columbus", "OH", "432"), ("Atlanta", "GA", "303"), ("Miami", "FL", "331"), ("Orlando", "FL", "328"),
    ("Charlotte", "NC", "282"), ("Raleigh", "NC", "276"), ("Nashville", "TN", "372"), ("Boston", "MA", "021"),
    ("New York", "NY", "100"), ("Brooklyn", "NY", "112"), ("Philadelphia", "PA", "191"), ("Pittsburgh", "PA", "152"),
    ("Baltimore", "MD", "212"), ("Washington", "DC", "200"), ("Phoenix", "AZ", "850"), ("Salt Lake City", "UT", "841"),
    ("Boise", "ID", "837"), ("Madison", "WI", "537"), ("Kansas City", "MO", "641"), ("Richmond", "VA", "232"),
)
STREETS = (
    "Maple Ave", "Oak St", "Pine St", "Cedar Ln", "Elm St", "Washington Blvd", "Lake Shore Dr", "Park Ave",
    "Main St", "2nd Ave", "Hillcrest Rd", "Sunset Blvd", "River Rd", "Highland Ave", "Madison St", "Church St",
    "Willow Way", "Franklin St", "Broadway", "Market St", "Spring St", "Valley View Dr", "Chestnut St", "Harbor Dr",
)
TAX_RATE_BPS = {
    "WA": 1010, "OR": 0, "CA": 875, "CO": 770, "TX": 825, "IL": 1025, "MN": 788, "MI": 600, "OH": 750,
    "GA": 890, "FL": 700, "NC": 725, "TN": 925, "MA": 625, "NY": 888, "PA": 600, "MD": 600, "DC": 600,
    "AZ": 860, "UT": 720, "ID": 600, "WI": 550, "MO": 810, "VA": 600,
}
"""Sales tax by region, in basis points (1/100 of a percent); unknown regions pay none."""

CARD_BRANDS = ("visa", "mastercard", "amex")
WALLETS = ("paypal", "shop_pay", "gift_card")

CANCEL_REASONS = (
    "Customer changed their mind", "Ordered the wrong size", "Duplicate order", "Payment declined",
    "Found a better price", "Shipping too slow",
)
RETURN_REASONS = (
    "Too small", "Too large", "Not as pictured", "Arrived damaged", "Changed my mind", "Quality not as expected",
    "Wrong item received",
)
EXCHANGE_REASONS = ("Too small", "Too large", "Prefer another colour")
ORDER_NOTES = (
    "Gift - please leave out the packing slip.", "Leave with the front desk.", "Please ship in one box.",
    "Birthday present, do not open!", "Deliver after 5 pm please.",
)
