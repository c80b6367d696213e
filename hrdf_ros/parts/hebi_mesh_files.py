"""The HEBI part meshes hrdf_ros uses, pinned: file names, sizes and SHA-256 digests.

In: nothing. Out: :data:`COMMIT` (the hebi_description commit the files come from),
:data:`DEFAULT_URL` (where ``hrdf meshes fetch`` downloads them: ``<url>/meshes/<file>``)
and :data:`FILES` ``{file name: (bytes, SHA-256 hex digest)}``, computed from that
commit's files (HebiRobotics/hebi_description, branch ros2/jazzy, 2025-02-25), one per
file :func:`hrdf_ros.parts.hebi_parts.mesh_files` names (test_mesh_fetch.py checks
that the two lists agree). A downloaded file whose digest differs is refused.
"""

#: hebi_description commit of the pinned meshes.
COMMIT = '49ee00069f106c2c57bbe161f503b635a891301a'
#: HEBI's public repository at that commit (raw files); ``--url`` replaces it.
DEFAULT_URL = f'https://raw.githubusercontent.com/HebiRobotics/hebi_description/{COMMIT}'
#: {file name: (size in bytes, SHA-256 hex digest)}.
FILES = {
    'A-2038-02.stl': (3533284,
        'f3fa020c8a19b37ddb38ccfd691dc9715f35e868ec375b2c223a97db38f2a450'),
    'A-2039-02.stl': (3531684,
        'c016d19e29e597c6436589f2a0ff8666fc9959245a9b76113fcf4a27c0cbad20'),
    'A-2220-01.stl': (3899684,
        '8f2059ffb8f94e1592e6014ce242577ce1a00e266ea697d7bf0f2bbcb9f2e84c'),
    'A-2221-01-Inside.stl': (268384,
        'be495fb89c162ddacb6d9e82d3d33c7c22e87bdefbc05d814d7da9e07016a4ea'),
    'A-2221-01-Outside.stl': (273584,
        '2428cfbc21046096abb63c246b9eddc4919938c2417df20d638dadada6a7c006'),
    'A-2225-01.stl': (577684,
        '6cb156cd8cb05cc2f3800449700cc1bdd13d30c54c1cd908175d938fcd035d72'),
    'A-2226-01.stl': (741684,
        '1bc7847f5259adf314b57c61e0a8a106d308de6ad3709346a450eaca0382a059'),
    'PM-2132-01L.stl': (136634,
        '133e42ddb19fd453d0f833594a8527879e574f5f19b61b7ebb929ac1285022e4'),
    'PM-2132-01R.stl': (387884,
        '74d5760953187f12af5101c856d911f249f54af569bd8f101b542625d6fa37aa'),
    'PM-2149-01.stl': (148684,
        '4c4edbf3f1c1ae5bbcd492f106d365a7ce5379f119efdb9e42dc570c7ebed352'),
    'PM-2150-01L.stl': (104634,
        '58d9b48b185f21011d3fc1132962aedeb9cfab19ade2c11392501a1a13a10810'),
    'PM-2150-01R.stl': (104634,
        'b7bfe7e950387db615be0248052cd471c0e3eb0e9ffeb35e1405b70bdd207324'),
    'PM-2221-01.stl': (77284,
        '398b212166881f0624cab1f17e98c92b1c16895a6f621dd9f46639997541d7e7'),
    'PM-2291-01.stl': (168784,
        '8eb900c59222b2e42c8b3081e5bfafe66827812623c084301374b6e4cb975b58'),
    'PM-2357-02.stl': (392184,
        'c0337fdbeffe0253a93594818906d0e5a907d12d4c29eee221d99aeb75f7d376'),
    'PM-2358-02.stl': (114684,
        '679d141a6529cc232b5db4a1896ed4d0c2bd58176ba5518572d3fc1b6ce93b7a'),
    'PM-2359-02.stl': (104084,
        '66fe675af7f5aefb5ad1737bfba1324c513145cfd91ed6d68da22766d5643ace'),
    'PM-2360-02.stl': (57684,
        '342ef94edbb493dac1c35b690826999fbecae9cf02baaa4e27d8d29bf09a1931'),
    'R8.stl': (1795684,
        '64afb7a1f6c51b80a62dfd8614dd9df1279ed8fb9e6530bc8737a0204c47b8ea'),
    'T5.stl': (1911134,
        '75dc6749ac7cee10503a244cd641b8741b5b652c2de0427fb0649b3b9c86d430'),
    'T8.stl': (1768784,
        '06773eb7dac911a3225185811bccb7f6fd1c57acc7246b502521cf13b9fbc51d'),
    'X5.stl': (2492684,
        '0f7dfe696ae5bc85603f35f524855bac939251cd466505fa6c499a9461b3accd'),
    'X8.stl': (2396684,
        '076a40406ae6fee0a982c814799c4146620b0c3cb832d97889191c9f7673ab49'),
}
