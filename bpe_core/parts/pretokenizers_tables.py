"""Character tables of Hugging Face `tokenizers` that Python's own Unicode data cannot give.

Measured from tokenizers 0.23.3 by probing every code point (tests/core/parts/test_pretokenizers.py
checks them again): both tables come from older Unicode versions than Python's, so computing them
from `unicodedata` or `regex` would differ on characters assigned or recategorized since.

- `PUNCTUATION`: what `BertPreTokenizer` and `Punctuation` cut at (ASCII punctuation and symbols
  plus the general categories P*, as of that table's Unicode version).
- `SCRIPTS`: the script of each character as `UnicodeScripts` sees it (hiragana, katakana and U+30FC
  count as Han); a character in none of them is "any" script (space, unassigned, newer ones).

Ranges are hexadecimal code points, `a-b` inclusive, separated by spaces.
"""
from __future__ import annotations

PUNCTUATION = (
    "21-2f 3a-40 5b-60 7b-7e a1 a7 ab b6-b7 bb bf 37e 387 55a-55f 589-58a 5be 5c0 5c3 5c6 5f3-5f4 609-60a 60c-60d 61b "
    "61e-61f 66a-66d 6d4 700-70d 7f7-7f9 830-83e 85e 964-965 970 af0 df4 e4f e5a-e5b f04-f12 f14 f3a-f3d f85 fd0-fd4 "
    "fd9-fda 104a-104f 10fb 1360-1368 1400 166d-166e 169b-169c 16eb-16ed 1735-1736 17d4-17d6 17d8-17da 1800-180a "
    "1944-1945 1a1e-1a1f 1aa0-1aa6 1aa8-1aad 1b5a-1b60 1bfc-1bff 1c3b-1c3f 1c7e-1c7f 1cc0-1cc7 1cd3 2010-2027 "
    "2030-2043 2045-2051 2053-205e 207d-207e 208d-208e 2308-230b 2329-232a 2768-2775 27c5-27c6 27e6-27ef 2983-2998 "
    "29d8-29db 29fc-29fd 2cf9-2cfc 2cfe-2cff 2d70 2e00-2e2e 2e30-2e42 3001-3003 3008-3011 3014-301f 3030 303d 30a0 "
    "30fb a4fe-a4ff a60d-a60f a673 a67e a6f2-a6f7 a874-a877 a8ce-a8cf a8f8-a8fa a8fc a92e-a92f a95f a9c1-a9cd "
    "a9de-a9df aa5c-aa5f aade-aadf aaf0-aaf1 abeb fd3e-fd3f fe10-fe19 fe30-fe52 fe54-fe61 fe63 fe68 fe6a-fe6b "
    "ff01-ff03 ff05-ff0a ff0c-ff0f ff1a-ff1b ff1f-ff20 ff3b-ff3d ff3f ff5b ff5d ff5f-ff65 10100-10102 1039f 103d0 "
    "1056f 10857 1091f 1093f 10a50-10a58 10a7f 10af0-10af6 10b39-10b3f 10b99-10b9c 11047-1104d 110bb-110bc "
    "110be-110c1 11140-11143 11174-11175 111c5-111c9 111cd 111db 111dd-111df 11238-1123d 112a9 114c6 115c1-115d7 "
    "11641-11643 1173c-1173e 12470-12474 16a6e-16a6f 16af5 16b37-16b3b 16b44 1bc9f 1da87-1da8b "
)

SCRIPTS: dict[str, str] = {
    "Adlam": "1e900-1e94a 1e950-1e959 1e95e-1e95f",
    "Ahom": "11700-11719 1171d-1172b 11730-1173f",
    "Anatolianhieroglyphs": "14400-14646",
    "Arabic": (
        "600-604 606-60b 60d-61a 61e 620-63f 641-64a 656-66f 671-6dc 6de-6ff 750-77f 8a0-8b4 8b6-8bd 8d4-8e1 8e3-8ff "
        "fb50-fbc1 fbd3-fd3d fd50-fd8f fd92-fdc7 fdf0-fdfd fe70-fe74 fe76-fefc 10e60-10e7e 1ee00-1ee03 1ee05-1ee1f "
        "1ee21-1ee22 1ee24 1ee27 1ee29-1ee32 1ee34-1ee37 1ee39 1ee3b 1ee42 1ee47 1ee49 1ee4b 1ee4d-1ee4f 1ee51-1ee52 "
        "1ee54 1ee57 1ee59 1ee5b 1ee5d 1ee5f 1ee61-1ee62 1ee64 1ee67-1ee6a 1ee6c-1ee72 1ee74-1ee77 1ee79-1ee7c 1ee7e "
        "1ee80-1ee89 1ee8b-1ee9b 1eea1-1eea3 1eea5-1eea9 1eeab-1eebb 1eef0-1eef1 "
    ),
    "Armenian": "531-556 559-55f 561-587 58a 58d-58f fb13-fb17",
    "Avestan": "10b00-10b35 10b39-10b3f",
    "Balinese": "1b00-1b4b 1b50-1b7c",
    "Bamum": "a6a0-a6f7 16800-16a38",
    "Bassavah": "16ad0-16aed 16af0-16af5",
    "Batak": "1bc0-1bf3 1bfc-1bff",
    "Bengali": (
        "980-983 985-98c 98f-990 993-9a8 9aa-9b0 9b2 9b6-9b9 9bc-9c4 9c7-9c8 9cb-9ce 9d7 9dc-9dd 9df-9e3 9e6-9fb "
    ),
    "Bhaiksuki": "11c00-11c08 11c0a-11c36 11c38-11c45 11c50-11c6c",
    "Bopomofo": "2ea-2eb 3105-312d 31a0-31ba",
    "Brahmi": "11000-1104d 11052-1106f 1107f",
    "Braille": "2800-28ff",
    "Buginese": "1a00-1a1b 1a1e-1a1f",
    "Buhid": "1740-1753",
    "Canadianaboriginal": "1400-167f 18b0-18f5",
    "Carian": "102a0-102d0",
    "Caucasianalbanian": "10530-10563 1056f",
    "Chakma": "11100-11134 11136-11143",
    "Cham": "aa00-aa36 aa40-aa4d aa50-aa59 aa5c-aa5f",
    "Cherokee": "13a0-13f5 13f8-13fd ab70-abbf",
    "Common": (
        "0-1f 21-40 5b-60 7b-a9 ab-b9 bb-bf d7 f7 2b9-2df 2e5-2e9 2ec-2ff 374 37e 385 387 589 605 60c 61b-61c 61f 640 "
        "6dd 8e2 964-965 e3f fd5-fd8 10fb 16eb-16ed 1735-1736 1802-1803 1805 1cd3 1ce1 1ce9-1cec 1cee-1cf3 1cf5-1cf6 "
        "2000-200b 200e-2064 2066-2070 2074-207e 2080-208e 20a0-20be 2100-2125 2127-2129 212c-2131 2133-214d "
        "214f-215f 2189-218b 2190-23fe 2400-2426 2440-244a 2460-27ff 2900-2b73 2b76-2b95 2b98-2bb9 2bbd-2bc8 "
        "2bca-2bd1 2bec-2bef 2e00-2e44 2ff0-2ffb 3000-3004 3006 3008-3020 3030-3037 303c-303f 309b-309c 30a0 30fb "
        "3190-319f 31c0-31e3 3220-325f 327f-32cf 3358-33ff 4dc0-4dff a700-a721 a788-a78a a830-a839 a92e a9cf ab5b "
        "fd3e-fd3f fe10-fe19 fe30-fe52 fe54-fe66 fe68-fe6b feff ff01-ff20 ff3b-ff40 ff5b-ff65 ff70 ff9e-ff9f "
        "ffe0-ffe6 ffe8-ffee fff9-fffd 10100-10102 10107-10133 10137-1013f 10190-1019b 101d0-101fc 102e1-102fb "
        "1bca0-1bca3 1d000-1d0f5 1d100-1d126 1d129-1d166 1d16a-1d17a 1d183-1d184 1d18c-1d1a9 1d1ae-1d1e8 1d300-1d356 "
        "1d360-1d371 1d400-1d454 1d456-1d49c 1d49e-1d49f 1d4a2 1d4a5-1d4a6 1d4a9-1d4ac 1d4ae-1d4b9 1d4bb 1d4bd-1d4c3 "
        "1d4c5-1d505 1d507-1d50a 1d50d-1d514 1d516-1d51c 1d51e-1d539 1d53b-1d53e 1d540-1d544 1d546 1d54a-1d550 "
        "1d552-1d6a5 1d6a8-1d7cb 1d7ce-1d7ff 1f000-1f02b 1f030-1f093 1f0a0-1f0ae 1f0b1-1f0bf 1f0c1-1f0cf 1f0d1-1f0f5 "
        "1f100-1f10c 1f110-1f12e 1f130-1f16b 1f170-1f1ac 1f1e6-1f1ff 1f201-1f202 1f210-1f23b 1f240-1f248 1f250-1f251 "
        "1f300-1f6d2 1f6e0-1f6ec 1f6f0-1f6f6 1f700-1f773 1f780-1f7d4 1f800-1f80b 1f810-1f847 1f850-1f859 1f860-1f887 "
        "1f890-1f8ad 1f910-1f91e 1f920-1f927 1f930 1f933-1f93e 1f940-1f94b 1f950-1f95e 1f980-1f991 1f9c0 e0001 "
        "e0020-e007f "
    ),
    "Coptic": "3e2-3ef 2c80-2cf3 2cf9-2cff",
    "Cuneiform": "12000-12399 12400-1246e 12470-12474 12480-12543",
    "Cypriot": "10800-10805 10808 1080a-10835 10837-10838 1083c 1083f",
    "Cyrillic": "400-484 487-52f 1c80-1c88 1d2b 1d78 2de0-2dff a640-a69f fe2e-fe2f",
    "Deseret": "10400-1044f",
    "Devanagari": "900-950 953-963 966-97f a8e0-a8fd",
    "Duployan": "1bc00-1bc6a 1bc70-1bc7c 1bc80-1bc88 1bc90-1bc99 1bc9c-1bc9f",
    "Egyptianhieroglyphs": "13000-1342e",
    "Elbasan": "10500-10527",
    "Ethiopic": (
        "1200-1248 124a-124d 1250-1256 1258 125a-125d 1260-1288 128a-128d 1290-12b0 12b2-12b5 12b8-12be 12c0 "
        "12c2-12c5 12c8-12d6 12d8-1310 1312-1315 1318-135a 135d-137c 1380-1399 2d80-2d96 2da0-2da6 2da8-2dae "
        "2db0-2db6 2db8-2dbe 2dc0-2dc6 2dc8-2dce 2dd0-2dd6 2dd8-2dde ab01-ab06 ab09-ab0e ab11-ab16 ab20-ab26 "
        "ab28-ab2e "
    ),
    "Georgian": "10a0-10c5 10c7 10cd 10d0-10fa 10fc-10ff 2d00-2d25 2d27 2d2d",
    "Glagolitic": "2c00-2c2e 2c30-2c5e 1e000-1e006 1e008-1e018 1e01b-1e021 1e023-1e024 1e026-1e02a",
    "Gothic": "10330-1034a",
    "Grantha": (
        "11300-11303 11305-1130c 1130f-11310 11313-11328 1132a-11330 11332-11333 11335-11339 1133c-11344 11347-11348 "
        "1134b-1134d 11350 11357 1135d-11363 11366-1136c 11370-11374 "
    ),
    "Greek": (
        "370-373 375-377 37a-37d 37f 384 386 388-38a 38c 38e-3a1 3a3-3e1 3f0-3ff 1d26-1d2a 1d5d-1d61 1d66-1d6a 1dbf "
        "1f00-1f15 1f18-1f1d 1f20-1f45 1f48-1f4d 1f50-1f57 1f59 1f5b 1f5d 1f5f-1f7d 1f80-1fb4 1fb6-1fc4 1fc6-1fd3 "
        "1fd6-1fdb 1fdd-1fef 1ff2-1ff4 1ff6-1ffe 2126 ab65 10140-1018e 101a0 1d200-1d245 "
    ),
    "Gujarati": (
        "a81-a83 a85-a8d a8f-a91 a93-aa8 aaa-ab0 ab2-ab3 ab5-ab9 abc-ac5 ac7-ac9 acb-acd ad0 ae0-ae3 ae6-af1 af9 "
    ),
    "Gurmukhi": (
        "a01-a03 a05-a0a a0f-a10 a13-a28 a2a-a30 a32-a33 a35-a36 a38-a39 a3c a3e-a42 a47-a48 a4b-a4d a51 a59-a5c a5e "
        "a66-a75 "
    ),
    "Han": (
        "2e80-2e99 2e9b-2ef3 2f00-2fd5 3005 3007 3021-3029 3038-303b 3041-3096 309d-309f 30a1-30fa 30fc-30ff "
        "31f0-31ff 32d0-32fe 3300-3357 3400-4db5 4e00-9fd5 f900-fa6d fa70-fad9 ff66-ff6f ff71-ff9d 1b000-1b001 1f200 "
        "20000-2a6d6 2a700-2b734 2b740-2b81d 2b820-2cea1 2f800-2fa1d "
    ),
    "Hangul": (
        "1100-11ff 302e-302f 3131-318e 3200-321e 3260-327e a960-a97c ac00-d7a3 d7b0-d7c6 d7cb-d7fb ffa0-ffbe "
        "ffc2-ffc7 ffca-ffcf ffd2-ffd7 ffda-ffdc "
    ),
    "Hanunoo": "1720-1734",
    "Hatran": "108e0-108f2 108f4-108f5 108fb-108ff",
    "Hebrew": "591-5c7 5d0-5ea 5f0-5f4 fb1d-fb36 fb38-fb3c fb3e fb40-fb41 fb43-fb44 fb46-fb4f",
    "Imperialaramaic": "10840-10855 10857-1085f",
    "Inherited": (
        "300-36f 485-486 64b-655 670 951-952 1ab0-1abe 1cd0-1cd2 1cd4-1ce0 1ce2-1ce8 1ced 1cf4 1cf8-1cf9 1dc0-1df5 "
        "1dfb-1dff 200c-200d 20d0-20f0 302a-302d 3099-309a fe00-fe0f fe20-fe2d 101fd 102e0 1d167-1d169 1d17b-1d182 "
        "1d185-1d18b 1d1aa-1d1ad e0100-e01ef "
    ),
    "Inscriptionalpahlavi": "10b60-10b72 10b78-10b7f",
    "Inscriptionalparthian": "10b40-10b55 10b58-10b5f",
    "Javanese": "a980-a9cd a9d0-a9d9 a9de-a9df",
    "Kaithi": "11080-110c1",
    "Kannada": (
        "c80-c83 c85-c8c c8e-c90 c92-ca8 caa-cb3 cb5-cb9 cbc-cc4 cc6-cc8 cca-ccd cd5-cd6 cde ce0-ce3 ce6-cef cf1-cf2 "
    ),
    "Kayahli": "a900-a92d a92f",
    "Kharoshthi": "10a00-10a03 10a05-10a06 10a0c-10a13 10a15-10a17 10a19-10a33 10a38-10a3a 10a3f-10a47 10a50-10a58",
    "Khmer": "1780-17dd 17e0-17e9 17f0-17f9 19e0-19ff",
    "Khojki": "11200-11211 11213-1123e",
    "Khudawadi": "112b0-112ea 112f0-112f9",
    "Lao": (
        "e81-e82 e84 e87-e88 e8a e8d e94-e97 e99-e9f ea1-ea3 ea5 ea7 eaa-eab ead-eb9 ebb-ebd ec0-ec4 ec6 ec8-ecd "
        "ed0-ed9 edc-edf "
    ),
    "Latin": (
        "41-5a 61-7a aa ba c0-d6 d8-f6 f8-2b8 2e0-2e4 1d00-1d25 1d2c-1d5c 1d62-1d65 1d6b-1d77 1d79-1dbe 1e00-1eff "
        "2071 207f 2090-209c 212a-212b 2132 214e 2160-2188 2c60-2c7f a722-a787 a78b-a7ae a7b0-a7b7 a7f7-a7ff "
        "ab30-ab5a ab5c-ab64 fb00-fb06 ff21-ff3a ff41-ff5a "
    ),
    "Lepcha": "1c00-1c37 1c3b-1c49 1c4d-1c4f",
    "Limbu": "1900-191e 1920-192b 1930-193b 1940 1944-194f",
    "Lineara": "10600-10736 10740-10755 10760-10767",
    "Linearb": "10000-1000b 1000d-10026 10028-1003a 1003c-1003d 1003f-1004d 10050-1005d 10080-100fa",
    "Lisu": "a4d0-a4ff",
    "Lycian": "10280-1029c",
    "Lydian": "10920-10939 1093f",
    "Mahajani": "11150-11176",
    "Malayalam": "d01-d03 d05-d0c d0e-d10 d12-d3a d3d-d44 d46-d48 d4a-d4f d54-d63 d66-d7f",
    "Mandaic": "840-85b 85e",
    "Manichaean": "10ac0-10ae6 10aeb-10af6",
    "Marchen": "11c70-11c8f 11c92-11ca7 11ca9-11cb6",
    "Meeteimayek": "aae0-aaf6 abc0-abed abf0-abf9",
    "Mendekikakui": "1e800-1e8c4 1e8c7-1e8d6",
    "Meroiticcursive": "109a0-109b7 109bc-109cf 109d2-109ff",
    "Meroitichieroglyphs": "10980-1099f",
    "Miao": "16f00-16f44 16f50-16f7e 16f8f-16f9f",
    "Modi": "11600-11644 11650-11659",
    "Mongolian": "1800-1801 1804 1806-180e 1810-1819 1820-1877 1880-18aa 11660-1166c",
    "Mro": "16a40-16a5e 16a60-16a69 16a6e-16a6f",
    "Multani": "11280-11286 11288 1128a-1128d 1128f-1129d 1129f-112a9",
    "Myanmar": "1000-109f a9e0-a9fe aa60-aa7f",
    "Nabataean": "10880-1089e 108a7-108af",
    "Newa": "11400-11459 1145b 1145d",
    "Newtailue": "1980-19ab 19b0-19c9 19d0-19da 19de-19df",
    "Nko": "7c0-7fa",
    "Ogham": "1680-169c",
    "Olchiki": "1c50-1c7f",
    "Oldhungarian": "10c80-10cb2 10cc0-10cf2 10cfa-10cff",
    "Olditalic": "10300-10323",
    "Oldnortharabian": "10a80-10a9f",
    "Oldpermic": "10350-1037a",
    "Oldpersian": "103a0-103c3 103c8-103d5",
    "Oldsoutharabian": "10a60-10a7f",
    "Oldturkic": "10c00-10c48",
    "Oriya": (
        "b01-b03 b05-b0c b0f-b10 b13-b28 b2a-b30 b32-b33 b35-b39 b3c-b44 b47-b48 b4b-b4d b56-b57 b5c-b5d b5f-b63 "
        "b66-b77 "
    ),
    "Osage": "104b0-104d3 104d8-104fb",
    "Osmanya": "10480-1049d 104a0-104a9",
    "Pahawhhmong": "16b00-16b45 16b50-16b59 16b5b-16b61 16b63-16b77 16b7d-16b8f",
    "Palmyrene": "10860-1087f",
    "Paucinhau": "11ac0-11af8",
    "Phagspa": "a840-a877",
    "Phoenician": "10900-1091b 1091f",
    "Psalterpahlavi": "10b80-10b91 10b99-10b9c 10ba9-10baf",
    "Rejang": "a930-a953 a95f",
    "Runic": "16a0-16ea 16ee-16f8",
    "Samaritan": "800-82d 830-83e",
    "Saurashtra": "a880-a8c5 a8ce-a8d9",
    "Sharada": "11180-111cd 111d0-111df",
    "Shavian": "10450-1047f",
    "Siddham": "11580-115b5 115b8-115dd",
    "Signwriting": "1d800-1da8b 1da9b-1da9f 1daa1-1daaf",
    "Sinhala": "d82-d83 d85-d96 d9a-db1 db3-dbb dbd dc0-dc6 dca dcf-dd4 dd6 dd8-ddf de6-def df2-df4 111e1-111f4",
    "Sorasompeng": "110d0-110e8 110f0-110f9",
    "Sundanese": "1b80-1bbf 1cc0-1cc7",
    "Sylotinagri": "a800-a82b",
    "Syriac": "700-70d 70f-74a 74d-74f",
    "Tagalog": "1700-170c 170e-1714",
    "Tagbanwa": "1760-176c 176e-1770 1772-1773",
    "Taile": "1950-196d 1970-1974",
    "Taitham": "1a20-1a5e 1a60-1a7c 1a7f-1a89 1a90-1a99 1aa0-1aad",
    "Taiviet": "aa80-aac2 aadb-aadf",
    "Takri": "11680-116b7 116c0-116c9",
    "Tamil": (
        "b82-b83 b85-b8a b8e-b90 b92-b95 b99-b9a b9c b9e-b9f ba3-ba4 ba8-baa bae-bb9 bbe-bc2 bc6-bc8 bca-bcd bd0 bd7 "
        "be6-bfa "
    ),
    "Tangut": "16fe0 17000-187ec 18800-18af2",
    "Telugu": (
        "c00-c03 c05-c0c c0e-c10 c12-c28 c2a-c39 c3d-c44 c46-c48 c4a-c4d c55-c56 c58-c5a c60-c63 c66-c6f c78-c7f "
    ),
    "Thaana": "780-7b1",
    "Thai": "e01-e3a e40-e5b",
    "Tibetan": "f00-f47 f49-f6c f71-f97 f99-fbc fbe-fcc fce-fd4 fd9-fda",
    "Tifinagh": "2d30-2d67 2d6f-2d70 2d7f",
    "Tirhuta": "11480-114c7 114d0-114d9",
    "Ugaritic": "10380-1039d 1039f",
    "Vai": "a500-a62b",
    "Warangciti": "118a0-118f2 118ff",
    "Yi": "a000-a48c a490-a4c6",
}
