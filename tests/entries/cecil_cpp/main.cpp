// Limit Nim entrant in C++: takes one stone from the last pile that has any.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

static std::vector<int> stones;
static int forced = 0;  // opening moves still to apply without answering

static void move() {
    for (int i = static_cast<int>(stones.size()) - 1; i >= 0; i--) {
        if (stones[i] > 0) {
            stones[i]--;
            std::cout << i + 1 << " 1" << std::endl;
            return;
        }
    }
}

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.rfind("Game ", 0) == 0) {
            std::size_t at = line.find("piles=");
            std::istringstream piles(line.substr(at + 6, line.find(' ', at) - at - 6));
            std::string pile;
            stones.clear();
            while (std::getline(piles, pile, ',')) stones.push_back(std::stoi(pile.substr(0, pile.find('/'))));
        } else if (line.rfind("Opening ", 0) == 0) {
            forced = std::stoi(line.substr(8));
        } else if (line.rfind("Start", 0) == 0) {
            move();
        } else if (line.rfind("Quit", 0) == 0) {
            return 0;
        } else {
            std::istringstream words(line);
            int pile, taken, left = 0;
            if (words >> pile >> taken) {
                stones[pile - 1] -= taken;
                for (int s : stones) left += s;
                if (forced > 0) forced--;
                else if (left > 0) move();
            }
        }
    }
    return 0;
}
