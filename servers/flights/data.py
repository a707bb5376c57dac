"""Fixed reference data of the airline: airports, world cities, hubs and aircraft seat layouts."""

from __future__ import annotations

import math

AIRLINE_CODE = "MR"
AIRLINE_NAME = "Meridian Air"

# code, name, city, country, latitude, longitude, IANA time zone
AIRPORTS: tuple[tuple[str, str, str, str, float, float, str], ...] = (
    ("JFK", "John F. Kennedy International Airport", "New York", "United States", 40.6413, -73.7781, "America/New_York"),
    ("LGA", "LaGuardia Airport", "New York", "United States", 40.7769, -73.8740, "America/New_York"),
    ("EWR", "Newark Liberty International Airport", "Newark", "United States", 40.6895, -74.1745, "America/New_York"),
    ("BOS", "Logan International Airport", "Boston", "United States", 42.3656, -71.0096, "America/New_York"),
    ("PHL", "Philadelphia International Airport", "Philadelphia", "United States", 39.8744, -75.2424, "America/New_York"),
    ("IAD", "Washington Dulles International Airport", "Washington", "United States", 38.9531, -77.4565, "America/New_York"),
    ("ATL", "Hartsfield-Jackson Atlanta International Airport", "Atlanta", "United States", 33.6407, -84.4277, "America/New_York"),
    ("MIA", "Miami International Airport", "Miami", "United States", 25.7959, -80.2870, "America/New_York"),
    ("ORD", "O'Hare International Airport", "Chicago", "United States", 41.9742, -87.9073, "America/Chicago"),
    ("DFW", "Dallas/Fort Worth International Airport", "Dallas", "United States", 32.8998, -97.0403, "America/Chicago"),
    ("IAH", "George Bush Intercontinental Airport", "Houston", "United States", 29.9902, -95.3368, "America/Chicago"),
    ("MSP", "Minneapolis-Saint Paul International Airport", "Minneapolis", "United States", 44.8848, -93.2223, "America/Chicago"),
    ("DEN", "Denver International Airport", "Denver", "United States", 39.8561, -104.6737, "America/Denver"),
    ("LAS", "Harry Reid International Airport", "Las Vegas", "United States", 36.0840, -115.1537, "America/Los_Angeles"),
    ("LAX", "Los Angeles International Airport", "Los Angeles", "United States", 33.9416, -118.4085, "America/Los_Angeles"),
    ("SFO", "San Francisco International Airport", "San Francisco", "United States", 37.6213, -122.3790, "America/Los_Angeles"),
    ("SEA", "Seattle-Tacoma International Airport", "Seattle", "United States", 47.4502, -122.3088, "America/Los_Angeles"),
    ("HNL", "Daniel K. Inouye International Airport", "Honolulu", "United States", 21.3245, -157.9251, "Pacific/Honolulu"),
    ("YYZ", "Toronto Pearson International Airport", "Toronto", "Canada", 43.6777, -79.6248, "America/Toronto"),
    ("YVR", "Vancouver International Airport", "Vancouver", "Canada", 49.1967, -123.1815, "America/Vancouver"),
    ("YUL", "Montreal-Trudeau International Airport", "Montreal", "Canada", 45.4706, -73.7408, "America/Toronto"),
    ("MEX", "Mexico City International Airport", "Mexico City", "Mexico", 19.4361, -99.0719, "America/Mexico_City"),
    ("GRU", "Sao Paulo/Guarulhos International Airport", "Sao Paulo", "Brazil", -23.4356, -46.4731, "America/Sao_Paulo"),
    ("EZE", "Ministro Pistarini International Airport", "Buenos Aires", "Argentina", -34.8222, -58.5358, "America/Argentina/Buenos_Aires"),
    ("LHR", "Heathrow Airport", "London", "United Kingdom", 51.4700, -0.4543, "Europe/London"),
    ("LGW", "Gatwick Airport", "London", "United Kingdom", 51.1537, -0.1821, "Europe/London"),
    ("MAN", "Manchester Airport", "Manchester", "United Kingdom", 53.3650, -2.2728, "Europe/London"),
    ("EDI", "Edinburgh Airport", "Edinburgh", "United Kingdom", 55.9500, -3.3725, "Europe/London"),
    ("DUB", "Dublin Airport", "Dublin", "Ireland", 53.4264, -6.2499, "Europe/Dublin"),
    ("CDG", "Paris Charles de Gaulle Airport", "Paris", "France", 49.0097, 2.5479, "Europe/Paris"),
    ("AMS", "Amsterdam Airport Schiphol", "Amsterdam", "Netherlands", 52.3105, 4.7683, "Europe/Amsterdam"),
    ("FRA", "Frankfurt Airport", "Frankfurt", "Germany", 50.0379, 8.5622, "Europe/Berlin"),
    ("MUC", "Munich Airport", "Munich", "Germany", 48.3537, 11.7750, "Europe/Berlin"),
    ("BER", "Berlin Brandenburg Airport", "Berlin", "Germany", 52.3667, 13.5033, "Europe/Berlin"),
    ("ZRH", "Zurich Airport", "Zurich", "Switzerland", 47.4582, 8.5555, "Europe/Zurich"),
    ("VIE", "Vienna International Airport", "Vienna", "Austria", 48.1103, 16.5697, "Europe/Vienna"),
    ("MAD", "Adolfo Suarez Madrid-Barajas Airport", "Madrid", "Spain", 40.4983, -3.5676, "Europe/Madrid"),
    ("BCN", "Josep Tarradellas Barcelona-El Prat Airport", "Barcelona", "Spain", 41.2974, 2.0833, "Europe/Madrid"),
    ("LIS", "Humberto Delgado Airport", "Lisbon", "Portugal", 38.7742, -9.1342, "Europe/Lisbon"),
    ("FCO", "Leonardo da Vinci-Fiumicino Airport", "Rome", "Italy", 41.8003, 12.2389, "Europe/Rome"),
    ("MXP", "Milan Malpensa Airport", "Milan", "Italy", 45.6306, 8.7281, "Europe/Rome"),
    ("CPH", "Copenhagen Airport", "Copenhagen", "Denmark", 55.6180, 12.6508, "Europe/Copenhagen"),
    ("ARN", "Stockholm Arlanda Airport", "Stockholm", "Sweden", 59.6498, 17.9238, "Europe/Stockholm"),
    ("ATH", "Athens International Airport", "Athens", "Greece", 37.9364, 23.9445, "Europe/Athens"),
    ("IST", "Istanbul Airport", "Istanbul", "Turkey", 41.2753, 28.7519, "Europe/Istanbul"),
    ("DXB", "Dubai International Airport", "Dubai", "United Arab Emirates", 25.2532, 55.3657, "Asia/Dubai"),
    ("DOH", "Hamad International Airport", "Doha", "Qatar", 25.2731, 51.6081, "Asia/Qatar"),
    ("TLV", "Ben Gurion Airport", "Tel Aviv", "Israel", 32.0055, 34.8854, "Asia/Jerusalem"),
    ("JNB", "O. R. Tambo International Airport", "Johannesburg", "South Africa", -26.1392, 28.2460, "Africa/Johannesburg"),
    ("NBO", "Jomo Kenyatta International Airport", "Nairobi", "Kenya", -1.3192, 36.9278, "Africa/Nairobi"),
    ("SIN", "Singapore Changi Airport", "Singapore", "Singapore", 1.3644, 103.9915, "Asia/Singapore"),
    ("HKG", "Hong Kong International Airport", "Hong Kong", "Hong Kong", 22.3080, 113.9185, "Asia/Hong_Kong"),
    ("NRT", "Narita International Airport", "Tokyo", "Japan", 35.7720, 140.3929, "Asia/Tokyo"),
    ("HND", "Tokyo Haneda Airport", "Tokyo", "Japan", 35.5494, 139.7798, "Asia/Tokyo"),
    ("ICN", "Incheon International Airport", "Seoul", "South Korea", 37.4602, 126.4407, "Asia/Seoul"),
    ("PVG", "Shanghai Pudong International Airport", "Shanghai", "China", 31.1443, 121.8083, "Asia/Shanghai"),
    ("BKK", "Suvarnabhumi Airport", "Bangkok", "Thailand", 13.6900, 100.7501, "Asia/Bangkok"),
    ("DEL", "Indira Gandhi International Airport", "Delhi", "India", 28.5562, 77.1000, "Asia/Kolkata"),
    ("BOM", "Chhatrapati Shivaji Maharaj International Airport", "Mumbai", "India", 19.0896, 72.8656, "Asia/Kolkata"),
    ("SYD", "Sydney Kingsford Smith Airport", "Sydney", "Australia", -33.9399, 151.1753, "Australia/Sydney"),
    ("MEL", "Melbourne Airport", "Melbourne", "Australia", -37.6690, 144.8410, "Australia/Melbourne"),
    ("AKL", "Auckland Airport", "Auckland", "New Zealand", -37.0082, 174.7850, "Pacific/Auckland"),
)

HUBS: tuple[str, ...] = ("JFK", "ORD", "LAX", "LHR", "DXB", "SIN")

# name, country, latitude, longitude (city centre)
CITIES: tuple[tuple[str, str, float, float], ...] = (
    ("New York", "United States", 40.7128, -74.0060),
    ("Newark", "United States", 40.7357, -74.1724),
    ("Boston", "United States", 42.3601, -71.0589),
    ("Philadelphia", "United States", 39.9526, -75.1652),
    ("Washington", "United States", 38.9072, -77.0369),
    ("Atlanta", "United States", 33.7490, -84.3880),
    ("Miami", "United States", 25.7617, -80.1918),
    ("Orlando", "United States", 28.5383, -81.3792),
    ("Chicago", "United States", 41.8781, -87.6298),
    ("Dallas", "United States", 32.7767, -96.7970),
    ("Houston", "United States", 29.7604, -95.3698),
    ("Minneapolis", "United States", 44.9778, -93.2650),
    ("Denver", "United States", 39.7392, -104.9903),
    ("Salt Lake City", "United States", 40.7608, -111.8910),
    ("Phoenix", "United States", 33.4484, -112.0740),
    ("Las Vegas", "United States", 36.1699, -115.1398),
    ("Los Angeles", "United States", 34.0522, -118.2437),
    ("San Francisco", "United States", 37.7749, -122.4194),
    ("Seattle", "United States", 47.6062, -122.3321),
    ("San Diego", "United States", 32.7157, -117.1611),
    ("Honolulu", "United States", 21.3069, -157.8583),
    ("Toronto", "Canada", 43.6532, -79.3832),
    ("Vancouver", "Canada", 49.2827, -123.1207),
    ("Montreal", "Canada", 45.5019, -73.5674),
    ("Mexico City", "Mexico", 19.4326, -99.1332),
    ("Cancun", "Mexico", 21.1619, -86.8515),
    ("Sao Paulo", "Brazil", -23.5505, -46.6333),
    ("Buenos Aires", "Argentina", -34.6037, -58.3816),
    ("Bogota", "Colombia", 4.7110, -74.0721),
    ("London", "United Kingdom", 51.5074, -0.1278),
    ("Manchester", "United Kingdom", 53.4808, -2.2426),
    ("Edinburgh", "United Kingdom", 55.9533, -3.1883),
    ("Dublin", "Ireland", 53.3498, -6.2603),
    ("Paris", "France", 48.8566, 2.3522),
    ("Amsterdam", "Netherlands", 52.3676, 4.9041),
    ("Frankfurt", "Germany", 50.1109, 8.6821),
    ("Munich", "Germany", 48.1351, 11.5820),
    ("Berlin", "Germany", 52.5200, 13.4050),
    ("Zurich", "Switzerland", 47.3769, 8.5417),
    ("Vienna", "Austria", 48.2082, 16.3738),
    ("Madrid", "Spain", 40.4168, -3.7038),
    ("Barcelona", "Spain", 41.3874, 2.1686),
    ("Lisbon", "Portugal", 38.7223, -9.1393),
    ("Rome", "Italy", 41.9028, 12.4964),
    ("Milan", "Italy", 45.4642, 9.1900),
    ("Copenhagen", "Denmark", 55.6761, 12.5683),
    ("Stockholm", "Sweden", 59.3293, 18.0686),
    ("Warsaw", "Poland", 52.2297, 21.0122),
    ("Athens", "Greece", 37.9838, 23.7275),
    ("Istanbul", "Turkey", 41.0082, 28.9784),
    ("Dubai", "United Arab Emirates", 25.2048, 55.2708),
    ("Doha", "Qatar", 25.2854, 51.5310),
    ("Tel Aviv", "Israel", 32.0853, 34.7818),
    ("Cairo", "Egypt", 30.0444, 31.2357),
    ("Johannesburg", "South Africa", -26.2041, 28.0473),
    ("Nairobi", "Kenya", -1.2921, 36.8219),
    ("Singapore", "Singapore", 1.3521, 103.8198),
    ("Hong Kong", "Hong Kong", 22.3193, 114.1694),
    ("Tokyo", "Japan", 35.6762, 139.6503),
    ("Seoul", "South Korea", 37.5665, 126.9780),
    ("Shanghai", "China", 31.2304, 121.4737),
    ("Bangkok", "Thailand", 13.7563, 100.5018),
    ("Kuala Lumpur", "Malaysia", 3.1390, 101.6869),
    ("Delhi", "India", 28.7041, 77.1025),
    ("Mumbai", "India", 19.0760, 72.8777),
    ("Sydney", "Australia", -33.8688, 151.2093),
    ("Melbourne", "Australia", -37.8136, 144.9631),
    ("Auckland", "New Zealand", -36.8485, 174.7633),
    ("Jersey City", "United States", 40.7178, -74.0431),
    ("Providence", "United States", 41.8240, -71.4128),
    ("Baltimore", "United States", 39.2904, -76.6122),
    ("Pittsburgh", "United States", 40.4406, -79.9959),
    ("Detroit", "United States", 42.3314, -83.0458),
    ("Indianapolis", "United States", 39.7684, -86.1581),
    ("St. Louis", "United States", 38.6270, -90.1994),
    ("Kansas City", "United States", 39.0997, -94.5786),
    ("Nashville", "United States", 36.1627, -86.7816),
    ("Charlotte", "United States", 35.2271, -80.8431),
    ("Raleigh", "United States", 35.7796, -78.6382),
    ("Tampa", "United States", 27.9506, -82.4572),
    ("Fort Lauderdale", "United States", 26.1224, -80.1373),
    ("New Orleans", "United States", 29.9511, -90.0715),
    ("Austin", "United States", 30.2672, -97.7431),
    ("San Antonio", "United States", 29.4241, -98.4936),
    ("Fort Worth", "United States", 32.7555, -97.3308),
    ("Boulder", "United States", 40.0150, -105.2705),
    ("Portland", "United States", 45.5152, -122.6784),
    ("Sacramento", "United States", 38.5816, -121.4944),
    ("San Jose", "United States", 37.3382, -121.8863),
    ("Palo Alto", "United States", 37.4419, -122.1430),
    ("Ottawa", "Canada", 45.4215, -75.6972),
    ("Calgary", "Canada", 51.0447, -114.0719),
    ("Hamilton", "Canada", 43.2557, -79.8711),
    ("Guadalajara", "Mexico", 20.6597, -103.3496),
    ("Rio de Janeiro", "Brazil", -22.9068, -43.1729),
    ("Oxford", "United Kingdom", 51.7520, -1.2577),
    ("Cambridge", "United Kingdom", 52.2053, 0.1218),
    ("Brighton", "United Kingdom", 50.8225, -0.1372),
    ("Liverpool", "United Kingdom", 53.4084, -2.9916),
    ("Glasgow", "United Kingdom", 55.8642, -4.2518),
    ("Newcastle", "United Kingdom", 54.9783, -1.6178),
    ("Lyon", "France", 45.7640, 4.8357),
    ("Marseille", "France", 43.2965, 5.3698),
    ("Rotterdam", "Netherlands", 51.9244, 4.4777),
    ("The Hague", "Netherlands", 52.0705, 4.3007),
    ("Brussels", "Belgium", 50.8503, 4.3517),
    ("Cologne", "Germany", 50.9375, 6.9603),
    ("Dusseldorf", "Germany", 51.2277, 6.7735),
    ("Hamburg", "Germany", 53.5511, 9.9937),
    ("Stuttgart", "Germany", 48.7758, 9.1829),
    ("Heidelberg", "Germany", 49.3988, 8.6724),
    ("Nuremberg", "Germany", 49.4521, 11.0767),
    ("Basel", "Switzerland", 47.5596, 7.5886),
    ("Geneva", "Switzerland", 46.2044, 6.1432),
    ("Valencia", "Spain", 39.4699, -0.3763),
    ("Seville", "Spain", 37.3891, -5.9845),
    ("Porto", "Portugal", 41.1579, -8.6291),
    ("Florence", "Italy", 43.7696, 11.2558),
    ("Oslo", "Norway", 59.9139, 10.7522),
    ("Helsinki", "Finland", 60.1699, 24.9384),
    ("Krakow", "Poland", 50.0647, 19.9450),
    ("Prague", "Czech Republic", 50.0755, 14.4378),
    ("Budapest", "Hungary", 47.4979, 19.0402),
    ("Abu Dhabi", "United Arab Emirates", 24.4539, 54.3773),
    ("Muscat", "Oman", 23.5880, 58.3829),
    ("Jerusalem", "Israel", 31.7683, 35.2137),
    ("Pretoria", "South Africa", -25.7479, 28.2293),
    ("Cape Town", "South Africa", -33.9249, 18.4241),
    ("Yokohama", "Japan", 35.4437, 139.6380),
    ("Osaka", "Japan", 34.6937, 135.5023),
    ("Kyoto", "Japan", 35.0116, 135.7681),
    ("Shenzhen", "China", 22.5431, 114.0579),
    ("Guangzhou", "China", 23.1291, 113.2644),
    ("Macau", "Macau", 22.1987, 113.5439),
    ("Beijing", "China", 39.9042, 116.4074),
    ("Taipei", "Taiwan", 25.0330, 121.5654),
    ("Pune", "India", 18.5204, 73.8567),
    ("Bengaluru", "India", 12.9716, 77.5946),
    ("Jakarta", "Indonesia", -6.2088, 106.8456),
    ("Manila", "Philippines", 14.5995, 120.9842),
    ("Phuket", "Thailand", 7.8804, 98.3923),
    ("Canberra", "Australia", -35.2809, 149.1300),
    ("Newcastle", "Australia", -32.9283, 151.7817),
    ("Brisbane", "Australia", -27.4698, 153.0251),
    ("Perth", "Australia", -31.9505, 115.8605),
    ("Wellington", "New Zealand", -41.2865, 174.7762),
    ("Hamilton", "New Zealand", -37.7870, 175.2793),
)

# aircraft -> cabins, each (cabin, first row, last row, seat letters)
AIRCRAFT: dict[str, tuple[tuple[str, int, int, str], ...]] = {
    "A220-300": (("business", 1, 3, "ACDF"), ("economy", 4, 27, "ACDEF")),
    "A321neo": (("business", 1, 5, "ACDF"), ("economy", 6, 33, "ABCDEF")),
    "B787-9": (("business", 1, 7, "ADGK"), ("economy", 10, 38, "ABCDEFHJK")),
    "A350-900": (("business", 1, 8, "ADGK"), ("economy", 10, 41, "ABCDEFHJK")),
}


def aircraft_for(distance_km: int) -> str:
    """The aircraft type flown on a route of this length."""
    if distance_km < 1800:
        return "A220-300"
    if distance_km < 5000:
        return "A321neo"
    if distance_km < 9500:
        return "B787-9"
    return "A350-900"


def cabin_seats(aircraft: str, cabin: str) -> list[str]:
    """Every seat of one cabin of an aircraft type, front to back (`12A`)."""
    return [
        f"{row}{letter}"
        for name, first, last, letters in AIRCRAFT[aircraft]
        if name == cabin
        for row in range(first, last + 1)
        for letter in letters
    ]


def cabin_of_seat(aircraft: str, seat: str) -> str | None:
    """The cabin a seat is in, or None when the aircraft has no such seat."""
    row, letter = int(seat[:-1]), seat[-1]
    for name, first, last, letters in AIRCRAFT[aircraft]:
        if first <= row <= last and letter in letters:
            return name
    return None


def distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle (haversine) distance in kilometres."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(a))
